/**
 * Why `name` is not a valid branch name, following `git check-ref-format --branch` (one-level names
 * allowed), or undefined when it is valid.
 * https://git-scm.com/docs/git-check-ref-format
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 255) return 'must be at most 255 characters';
  if (name === '@') return 'must not be "@"';
  if (name === 'HEAD') return 'must not be "HEAD"';
  if (name.startsWith('-')) return 'must not start with "-"';
  // ASCII control characters, space, ~ ^ : ? * [ and backslash are never allowed.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'must not start or end with "/" or contain "//"';
  if (name.endsWith('.')) return 'must not end with "."';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'no part between slashes may start with "."';
    if (component.endsWith('.lock')) return 'no part between slashes may end with ".lock"';
  }
  return undefined;
}
