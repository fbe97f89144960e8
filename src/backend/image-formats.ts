/**
 * The image formats Glance knows (`disk_format`, the default `[image_format] disk_formats`), and how their bytes
 * are encoded. A backend keeps an image as-is only when it stores that encoding; anything else is a conversion.
 */
export const IMAGE_FORMATS = ['raw', 'qcow2', 'ploop', 'vmdk', 'vdi', 'vhd', 'vhdx', 'iso', 'aki', 'ari', 'ami'] as const;

export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/** The on-disk encoding a backend stores, and the encoding of an image's bytes. */
export type StoredFormat = 'raw' | 'qcow2' | 'ploop' | 'vmdk' | 'vdi' | 'vhd' | 'vhdx';

// iso, ami, aki and ari are plain byte streams (qemu-img reports them as raw), so a raw-storing backend takes them
// without conversion; nova's rbd format gate lets iso through for the same reason.
const PAYLOAD_ENCODING: { readonly [F in ImageFormat]: StoredFormat } = {
  raw: 'raw', iso: 'raw', ami: 'raw', aki: 'raw', ari: 'raw',
  qcow2: 'qcow2', ploop: 'ploop', vmdk: 'vmdk', vdi: 'vdi', vhd: 'vhd', vhdx: 'vhdx',
};

export function isImageFormat(value: string): value is ImageFormat {
  return (IMAGE_FORMATS as readonly string[]).includes(value);
}

export function payloadEncodingOf(format: ImageFormat): StoredFormat {
  return PAYLOAD_ENCODING[format];
}
