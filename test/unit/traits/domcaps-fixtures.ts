// Real libvirt 9.0.0 / QEMU 7.2 answers from fixtures/domcaps (Debian 12 host, x86_64, OVMF + swtpm installed).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';
import type { DomainCapabilities } from '../../../src/traits/parse-domain-capabilities.js';

export const DOMCAPS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'domcaps');

export const DOMCAPS_FILES = [
  'domcaps-x86_64-kvm-pc.xml',
  'domcaps-x86_64-kvm-q35.xml',
  'domcaps-x86_64-qemu-pc.xml',
  'domcaps-x86_64-qemu-q35.xml',
] as const;

export type DomcapsFile = (typeof DOMCAPS_FILES)[number];

export function readFixture(file: string): string {
  return readFileSync(join(DOMCAPS_DIR, file), 'utf8');
}

export function loadDomcaps(file: DomcapsFile): DomainCapabilities {
  return parseDomainCapabilities(readFixture(file), file);
}
