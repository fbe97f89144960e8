// Where a configuration value came from. The label is what messages and `ferry config show` print; the kind
// decides the error code (a flag or variable the operator typed vs. a file they edit).

export type ConfigSourceKind = 'flag' | 'env' | 'file' | 'default' | 'derived';

export interface ConfigSource {
  readonly kind: ConfigSourceKind;
  readonly label: string;
}

export function flagSource(flag: string): ConfigSource {
  return { kind: 'flag', label: `--${flag}` };
}

export function envSource(name: string): ConfigSource {
  return { kind: 'env', label: name };
}

/** `clouds.yaml (/home/u/.config/openstack/clouds.yaml) clouds.site-a.auth.auth_url` (or `secure.yaml (…) …`). */
export function cloudsSource(file: CloudsFileRef, cloud: string, keyPath: string): ConfigSource {
  return { kind: 'file', label: `${cloudsFileLabel(file)} clouds.${cloud}${keyPath === '' ? '' : `.${keyPath}`}` };
}

export interface CloudsFileRef {
  readonly kind: 'clouds' | 'secure';
  readonly path: string;
}

export function cloudsFileLabel(file: CloudsFileRef): string {
  return `${file.kind === 'clouds' ? 'clouds.yaml' : 'secure.yaml'} (${file.path})`;
}

/** `nova.conf (/etc/nova/nova.conf) [libvirt] images_rbd_pool`. */
export function novaSource(path: string, section: string, option: string): ConfigSource {
  return { kind: 'file', label: `${novaConfLabel(path)} [${section}] ${option}` };
}

export function novaConfLabel(path: string): string {
  return `nova.conf (${path})`;
}

export const DEFAULT_SOURCE: ConfigSource = { kind: 'default', label: 'default' };

export function derivedSource(label: string): ConfigSource {
  return { kind: 'derived', label };
}

/** A resolved value and where it came from. */
export interface Sourced<T> {
  readonly value: T;
  readonly source: ConfigSource;
}
