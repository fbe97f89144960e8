import type { HostConfig } from '../config/ferry-config.js';
import type { HostTraitReport } from './host-traits.js';

/** The storage settings the image-type traits were computed from (the host's resolved configuration). */
export interface TraitsStorage {
  readonly imagesType: HostConfig['imagesType'];
  readonly imagesTypeMapping: string | undefined;
  readonly forceRawImages: boolean;
  readonly useCowImages: boolean;
  readonly imageTypeExcludeList: readonly string[];
  readonly virtType: HostConfig['virtType'];
  /** Format → backend for every format the host keeps as-is (from src/backend). */
  readonly keptFormats: Readonly<Record<string, string>>;
}

/** A domain capabilities query virsh refused: nova drops the whole arch then, and so does ferry. */
export interface SkippedDomcaps {
  readonly arch: string;
  readonly command: string;
  readonly error: string;
}

/** What `ferry traits` computed, and from what. */
export interface TraitsCommandReport {
  readonly report: HostTraitReport;
  readonly storage: TraitsStorage;
  readonly skipped: readonly SkippedDomcaps[];
}
