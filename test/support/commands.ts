import type { MongoClient } from 'mongodb';

/**
 * Every command `client` sends while `during` runs, in order, each as `name collection` where it names one
 * (`find environments`, `insert deployment_logs`). `during` sees the list grow; with `bodies`, each
 * command's body is added to it at the same index. The driver must monitor commands (the test server's
 * client does).
 */
export async function commandsDuring(client: MongoClient, during: (seen: string[]) => Promise<unknown>, bodies?: Record<string, unknown>[]): Promise<string[]> {
  const seen: string[] = [];
  const listener = (event: { commandName: string; command: Record<string, unknown> }) => {
    const target = event.command[event.commandName];
    seen.push(typeof target === 'string' ? `${event.commandName} ${target}` : event.commandName);
    bodies?.push(event.command);
  };
  client.on('commandStarted', listener);
  try {
    await during(seen);
  } finally {
    client.off('commandStarted', listener);
  }
  return seen;
}
