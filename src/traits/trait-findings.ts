import { describeMissingTrait } from './trait-catalogue.js';
import type { TraitCatalogue } from './trait-catalogue.js';

/** A value ferry read (from XML or config) that names no trait the target catalogue has: reported, never emitted. */
export interface UnmappedValue {
  /** The value as found: `ramfb`, `tpm-crb`, `i686`. */
  readonly value: string;
  /** Where: `devices/video/enum[@name='modelType'] in domcaps-x86_64-kvm-q35.xml`. */
  readonly source: string;
  /** The name it would map to, when there is a naming rule for it. */
  readonly trait?: string;
  /** Why it is not emitted: not a trait at all, or only in a later os-traits. */
  readonly why: string;
}

/** What a trait rule decided: traits with their reasons, and the rest that explains them. */
export interface TraitFindings {
  /** Sorted, each one in the catalogue. */
  readonly traits: readonly string[];
  /** One reason per trait: the XML element/value or config option that produced it. */
  readonly reasons: Readonly<Record<string, string>>;
  /** Catalogue names of the decided families that the host does not get, and why. */
  readonly absent: Readonly<Record<string, string>>;
  readonly unmapped: readonly UnmappedValue[];
  /**
   * The families (prefixes ending in `_`, or exact names) this result decides completely: a trait of one of them
   * that is not in `traits` should be removed from the provider. Families ferry had no input for are left out.
   */
  readonly decidedFamilies: readonly string[];
}

/** Collects findings; every name it emits is checked against the catalogue, so no rule can emit an unknown name. */
export class TraitFindingsBuilder {
  private readonly present = new Map<string, string>();
  private readonly missing = new Map<string, string>();
  private readonly unmapped = new Map<string, UnmappedValue>();
  private readonly families = new Set<string>();

  constructor(readonly catalogue: TraitCatalogue) {}

  decide(...families: readonly string[]): this {
    for (const family of families) this.families.add(family);
    return this;
  }

  /**
   * Emit `trait` with `reason` when the catalogue has it; otherwise record `value` (found at `source`) as unmapped.
   * Returns whether the trait was emitted.
   */
  offer(trait: string, reason: string, value: string, source: string): boolean {
    if (this.catalogue.has(trait)) {
      if (!this.present.has(trait)) this.present.set(trait, reason);
      return true;
    }
    this.unmappedValue({ value, source, trait, why: describeMissingTrait(trait, this.catalogue) });
    return false;
  }

  /** Record why a catalogue name is not emitted; ignored for names the catalogue lacks (nothing to explain). */
  absent(trait: string, reason: string): this {
    if (this.catalogue.has(trait) && !this.missing.has(trait)) this.missing.set(trait, reason);
    return this;
  }

  unmappedValue(entry: UnmappedValue): this {
    const key = `${entry.trait ?? ''}\u0000${entry.value}\u0000${entry.source}`;
    if (!this.unmapped.has(key)) this.unmapped.set(key, Object.freeze({ ...entry }));
    return this;
  }

  merge(findings: TraitFindings): this {
    for (const trait of findings.traits) {
      const reason = findings.reasons[trait];
      if (reason !== undefined && !this.present.has(trait)) this.present.set(trait, reason);
    }
    for (const [trait, reason] of Object.entries(findings.absent)) this.absent(trait, reason);
    for (const entry of findings.unmapped) this.unmappedValue(entry);
    return this.decide(...findings.decidedFamilies);
  }

  build(): TraitFindings {
    const traits = [...this.present.keys()].sort();
    const absentNames = [...this.missing.keys()].filter((t) => !this.present.has(t)).sort();
    return Object.freeze({
      traits: Object.freeze(traits),
      reasons: Object.freeze(Object.fromEntries(traits.map((t) => [t, this.present.get(t) ?? '']))),
      absent: Object.freeze(Object.fromEntries(absentNames.map((t) => [t, this.missing.get(t) ?? '']))),
      unmapped: Object.freeze(
        [...this.unmapped.values()].sort((a, b) => compareText(a.trait ?? a.value, b.trait ?? b.value) || compareText(a.source, b.source)),
      ),
      decidedFamilies: Object.freeze([...this.families].sort()),
    });
  }
}

/** `devices/disk/enum[@name='bus'] value 'sata' in a.xml, b.xml`: the reason format for values read from XML. */
export function valueReason(path: string, value: string, sources: readonly string[]): string {
  return `${path} value '${value}' in ${sources.join(', ')}`;
}

/** The os-traits spelling of a libvirt or nova value: upper case, `-` becomes `_` (`spapr-vlan` → `SPAPR_VLAN`). */
export function traitSuffix(value: string): string {
  return value.toUpperCase().replace(/-/g, '_');
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
