/**
 * The variables a child of ferry (rbd, ceph, virsh, python3, systemd-notify) is given, and no others: what those
 * programs need to find themselves, their files and the operator's language. Chosen by name, so that nothing ferry
 * itself is given reaches a child: not its credentials (OS_PASSWORD, OS_AUTH_TOKEN, an application credential's
 * secret, FERRY_*), not what would change what a child loads (PYTHONPATH, PYTHONSTARTUP, LD_PRELOAD), not systemd's
 * NOTIFY_SOCKET or LISTEN_* meant for ferry. Ceph's own two (CEPH_ARGS, CEPH_CONF) are the operator's Ceph settings,
 * which the ceph and rbd commands read as they would without ferry.
 */
export const CHILD_ENVIRONMENT_NAMES = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'CEPH_ARGS', 'CEPH_CONF'] as const;

/** LC_ALL, LC_CTYPE, LC_MESSAGES, …: the locale categories. */
const LOCALE_CATEGORY = /^LC_[A-Z]+$/;

/** Where a child looks for programs when ferry itself was started without PATH (as execvp would). */
export const DEFAULT_CHILD_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The environment of a child: the allowed variables of `parent` (ferry's own environment), and `extra` (only the child
 * that needs one gets it: NOTIFY_SOCKET for systemd-notify).
 */
export function childEnvironment(parent: Readonly<Record<string, string | undefined>> = process.env,
  extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_CHILD_PATH };
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if ((CHILD_ENVIRONMENT_NAMES as readonly string[]).includes(name) || LOCALE_CATEGORY.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}
