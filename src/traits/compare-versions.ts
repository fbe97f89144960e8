import { FerryError } from '../errors/ferry-error.js';

/** A dotted release number (`9.0.0`, `7.2.22`, `3.2.0`), compared part by part; missing parts count as 0. */
export type VersionParts = readonly number[];

const VERSION = /^\d+(?:\.\d+){0,3}$/;

/**
 * Parse `major[.minor[.micro[.nano]]]`. `option` names where the value came from, for the message
 * (`libvirtVersion`, `--os-traits-version`). Anything else (a Debian revision, a suffix) is FERRY_INVALID_OPTION:
 * ferry compares versions to decide traits, and a guess there would report traits the host may lack.
 */
export function parseVersion(value: string, option: string): VersionParts {
  const trimmed = value.trim();
  if (!VERSION.test(trimmed)) {
    throw new FerryError(
      'FERRY_INVALID_OPTION',
      `${option} must be a dotted release number like 9.0.0, got '${value}'`,
      `Give the upstream version only, without a distribution suffix (libvirt 9.0.0-4+deb12u2 is 9.0.0).`,
      { option, value },
    );
  }
  return trimmed.split('.').map(Number);
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: VersionParts, b: VersionParts): number {
  const length = Math.max(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** `undefined` (version unknown) is never at least anything: callers treat an unknown version as too old. */
export function versionAtLeast(version: VersionParts | undefined, minimum: VersionParts): boolean {
  return version !== undefined && compareVersions(version, minimum) >= 0;
}

export function formatVersion(version: VersionParts): string {
  return version.join('.');
}
