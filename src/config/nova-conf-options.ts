import { IMAGES_TYPES, VIRT_TYPES } from './ferry-config.js';
import { optionTypes, type OptionType } from './option-types.js';

export interface NovaOptionSpec<T> {
  readonly section: string;
  readonly option: string;
  readonly type: OptionType<T>;
  /** nova's default as its docs write it (for docs/nova-conf.md; ferry's own defaults are CONFIG_DEFAULTS). */
  readonly novaDefault: string;
  /** `''` means "not set" for this option (nova: feature off / library default), so it does not override. */
  readonly emptyIsUnset?: boolean;
  /**
   * nova's default differs from ferry's own: when a nova.conf is read and no file sets the option, nova's default
   * (`novaDefault`, parsed with `type`) applies, as it does for nova.
   */
  readonly novaDefaultApplies?: boolean;
}

function novaOption<T>(section: string, option: string, type: OptionType<T>, novaDefault: string,
  emptyIsUnset = false, novaDefaultApplies = false): NovaOptionSpec<T> {
  return { section, option, type, novaDefault, emptyIsUnset, novaDefaultApplies };
}

/**
 * The nova.conf options ferry reads (reference/nova-behaviour.md §8), by ferry's name for them. Every other option
 * in the file is ignored. Types follow oslo.config: IntOpt, BoolOpt, ListOpt, StrOpt with choices.
 */
export const NOVA_CONF_OPTIONS = {
  storeName: novaOption('libvirt', 'images_rbd_glance_store_name', optionTypes.storeName, "''", true),
  pollIntervalMs: novaOption('libvirt', 'images_rbd_glance_copy_poll_interval', optionTypes.intSecondsToMs(1), '15'),
  copyTimeoutMs: novaOption('libvirt', 'images_rbd_glance_copy_timeout',
    optionTypes.intSecondsToMs(0, ' (0 = no timeout)'), '600'),
  rbdPool: novaOption('libvirt', 'images_rbd_pool', optionTypes.text, 'rbd'),
  cephConf: novaOption('libvirt', 'images_rbd_ceph_conf', optionTypes.path, "''", true),
  rbdUser: novaOption('libvirt', 'rbd_user', optionTypes.text, '(none)', true),
  imagesType: novaOption('libvirt', 'images_type', optionTypes.oneOf(IMAGES_TYPES), 'default'),
  imagesTypeMapping: novaOption('libvirt', 'images_type_mapping', optionTypes.text, '(not in nova)', true),
  virtType: novaOption('libvirt', 'virt_type', optionTypes.oneOf(VIRT_TYPES), 'kvm'),
  swtpmEnabled: novaOption('libvirt', 'swtpm_enabled', optionTypes.bool, 'false'),
  machineTypes: novaOption('libvirt', 'hw_machine_type', optionTypes.machineTypes, '(none)', true),
  libvirtUri: novaOption('libvirt', 'connection_uri', optionTypes.text, "''", true),
  forceRawImages: novaOption('DEFAULT', 'force_raw_images', optionTypes.bool, 'true'),
  useCowImages: novaOption('DEFAULT', 'use_cow_images', optionTypes.bool, 'true'),
  imageTypeExcludeList: novaOption('compute', 'image_type_exclude_list', optionTypes.list, '(empty)'),
  imageTypePrefilter: novaOption('scheduler', 'query_placement_for_image_type_support', optionTypes.bool, 'false'),
  imageMetadataPrefilter: novaOption('scheduler', 'image_metadata_prefilter', optionTypes.bool, 'false'),
  glanceEndpointOverride: novaOption('glance', 'endpoint_override', optionTypes.url, '(none)', true),
  glanceApiServers: novaOption('glance', 'api_servers', optionTypes.urlList, '(none)', true),
  glanceNumRetries: novaOption('glance', 'num_retries', optionTypes.integer(0), '3'),
  glanceRegionName: novaOption('glance', 'region_name', optionTypes.text, '(none)', true),
  glanceValidInterfaces: novaOption('glance', 'valid_interfaces', optionTypes.interfaceList, 'internal,public', false, true),
  glanceCafile: novaOption('glance', 'cafile', optionTypes.path, '(none)', true),
  glanceCertfile: novaOption('glance', 'certfile', optionTypes.path, '(none)', true),
  glanceKeyfile: novaOption('glance', 'keyfile', optionTypes.path, '(none)', true),
  glanceInsecure: novaOption('glance', 'insecure', optionTypes.bool, 'false'),
  placementEndpointOverride: novaOption('placement', 'endpoint_override', optionTypes.url, '(none)', true),
  placementRegionName: novaOption('placement', 'region_name', optionTypes.text, '(none)', true),
  placementValidInterfaces: novaOption('placement', 'valid_interfaces', optionTypes.interfaceList, 'internal,public', false, true),
} as const;

export type NovaOptionId = keyof typeof NOVA_CONF_OPTIONS;

type ValueOf<S> = S extends NovaOptionSpec<infer T> ? T : never;
export type NovaOptionValue<K extends NovaOptionId> = ValueOf<(typeof NOVA_CONF_OPTIONS)[K]>;
