// Remote name rules of rclone 1.60 (the stricter of the versions in use, so a name accepted here
// works with every rclone) and rclone's wording when a name is refused.

const VALID = /^[\w. -]+$/;

/** rclone's reason a name is unusable as a config name, or undefined when it is fine. */
export function nameError(name: string): string | undefined {
  if (!VALID.test(name)) {
    return 'config name contains invalid characters - may only contain `0-9`, `A-Z`, `a-z`, `_`, `-`, `.` and space';
  }
  if (name.startsWith('-')) return 'config name starts with `-`';
  return undefined;
}

/**
 * The wizard's complaint about a typed name, in rclone's order: existing first, then empty, then the
 * rules. Undefined when the name can be used for a new remote.
 */
export function newNameProblem(name: string, exists: (name: string) => boolean): string | undefined {
  if (exists(name)) return `Remote "${name}" already exists.`;
  if (name === '') return "Can't use empty name.";
  const err = nameError(name);
  return err ? `Can't use "${name}" as ${err}.` : undefined;
}
