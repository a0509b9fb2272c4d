/**
 * Creates a resource under an id its caller fixed beforehand (the `Idempotency-Key` reservation, see
 * src/http/idempotency.ts), so that running the same request again, after a crash or next to a slow
 * first run, answers with what the first run made: never a second resource, and never a conflict (a
 * name or key already taken) with the client's own earlier write. Without an id it just creates.
 *
 * Returns the resource and whether this run created it (a secret shown once is then not available).
 */
export async function createOnce<T>(
  id: string | undefined,
  find: (id: string) => Promise<T | null>,
  create: () => Promise<T>,
): Promise<{ doc: T; created: boolean }> {
  if (id) {
    const existing = await find(id);
    if (existing) return { doc: existing, created: false };
  }
  try {
    return { doc: await create(), created: true };
  } catch (err) {
    // A concurrent run inserted it first (a duplicate key, or the uniqueness rule it tripped is its own).
    if (id) {
      const existing = await find(id).catch(() => null);
      if (existing) return { doc: existing, created: false };
    }
    throw err;
  }
}

/** Where a project's records are looked up: (account, project, id). */
type FindInProject<T> = (accountId: string, projectId: string, id: string) => Promise<T | null>;

/** createOnce for a record of a project (a deployment, a configuration): the earlier run's record is looked for in that project. */
export async function createOnceInProject<T>(
  project: { _id: string; account_id: string },
  id: string | undefined,
  find: FindInProject<T>,
  create: () => Promise<T>,
): Promise<T> {
  const { doc } = await createOnce(id, (existing) => find(project.account_id, project._id, existing), create);
  return doc;
}
