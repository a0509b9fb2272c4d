/**
 * The pages behind one-time links (the setup page, src/dashboard/setup.ts; the invitation page,
 * src/dashboard/invitation.ts) driven over plain HTTP, as a browser would.
 */

export interface OpenedLinkPage {
  /** The link. */
  url: string;
  status: number;
  text: string;
  /** The page's cookies, as a Cookie header (the form's CSRF cookie). */
  cookie: string;
  /** The form's CSRF value. */
  csrf: string;
}

/** Opens a link's page: its answer, the cookies it set (its form's signed CSRF cookie) and the form's CSRF value. */
export async function openLinkPage(url: string): Promise<OpenedLinkPage> {
  const response = await fetch(url, { redirect: 'manual' });
  const text = await response.text();
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  return { url, status: response.status, text, cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '' };
}

/**
 * On the invitation page: presses Accept (with `password`) or Decline on an opened page: the form posted to `origin` (default
 * the link's own, another instance's for races).
 */
export async function pressOnInvitation(opened: OpenedLinkPage, decision: 'accept' | 'decline', password = '', origin = new URL(opened.url).origin) {
  const token = new URL(opened.url).searchParams.get('token')!;
  const response = await fetch(`${origin}/dashboard/invitation`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: opened.cookie },
    body: new URLSearchParams({ token, _csrf: opened.csrf, decision, password }),
  });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

export const pressAccept = (opened: OpenedLinkPage, password: string) => pressOnInvitation(opened, 'accept', password);
