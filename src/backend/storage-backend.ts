import type { StoredFormat } from './image-formats.js';

/** The values `[libvirt] images_type` accepts (nova's StrOpt choices), also the right-hand side of a mapping entry. */
export const IMAGES_TYPE_VALUES = ['raw', 'flat', 'qcow2', 'lvm', 'rbd', 'ploop', 'default'] as const;

export type ImagesTypeValue = (typeof IMAGES_TYPE_VALUES)[number];

/**
 * A concrete libvirt image backend, named after nova's backend classes (`imagebackend.Backend.BACKEND`):
 * `raw` and `flat` are both the Flat backend, and `default` becomes qcow2 or flat by `use_cow_images`.
 */
export const STORAGE_BACKENDS = ['flat', 'qcow2', 'lvm', 'rbd', 'ploop'] as const;

export type StorageBackend = (typeof STORAGE_BACKENDS)[number];

const STORES: { readonly [B in StorageBackend]: StoredFormat } = {
  flat: 'raw', lvm: 'raw', rbd: 'raw', qcow2: 'qcow2', ploop: 'ploop',
};

export function isImagesTypeValue(value: string): value is ImagesTypeValue {
  return (IMAGES_TYPE_VALUES as readonly string[]).includes(value);
}

/** Nova's `Backend.backend()` lookup: the same answer nova would give for this images_type. */
export function backendFor(value: ImagesTypeValue, useCowImages: boolean): StorageBackend {
  switch (value) {
    case 'raw':
    case 'flat':
      return 'flat';
    case 'default':
      return useCowImages ? 'qcow2' : 'flat';
    case 'qcow2':
    case 'lvm':
    case 'rbd':
    case 'ploop':
      return value;
  }
}

/** What the backend keeps on disk; an image whose bytes are in another encoding is converted on the way in. */
export function storedFormatOf(backend: StorageBackend): StoredFormat {
  return STORES[backend];
}

/** Aliases that name the same backend compare equal (`raw` and `flat`); `default` only equals itself. */
export function sameDeclaredBackend(a: ImagesTypeValue, b: ImagesTypeValue): boolean {
  const flat = (v: ImagesTypeValue): ImagesTypeValue => (v === 'raw' ? 'flat' : v);
  return flat(a) === flat(b);
}
