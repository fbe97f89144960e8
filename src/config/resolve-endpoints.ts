import { resolve } from 'node:path';
import { CONFIG_DEFAULTS } from './config-defaults.js';
import type { ConfigIssues } from './config-issues.js';
import type { ConfigLayers } from './config-layers.js';
import { CONFIG_OPTIONS } from './config-options.js';
import type { Sourced } from './config-source.js';
import type { EndpointConfig, EndpointInterface, ServiceEndpointConfig, TlsConfig } from './ferry-config.js';
import type { NovaConfValues } from './read-nova-conf.js';
import type { SourceLog } from './source-log.js';

const O = CONFIG_OPTIONS;

export interface EndpointInputs {
  readonly layers: ConfigLayers;
  readonly nova: NovaConfValues;
  readonly sources: SourceLog;
  readonly issues: ConfigIssues;
  readonly cwd: string;
}

/**
 * Endpoints: the cloud-wide interface and region (flags > env > clouds.yaml), and per service what nova.conf says
 * below them (`[glance]` / `[placement]` endpoint_override, valid_interfaces, region_name). An explicit endpoint
 * (--glance-endpoint, nova's endpoint_override or the first of `[glance] api_servers`) skips the catalog.
 */
export function resolveEndpoints(input: EndpointInputs): EndpointConfig {
  const { layers, nova, sources } = input;
  const explicitInterface = layers.pick(O.interface);
  const iface = sources.choose('endpoints.interface', [explicitInterface], CONFIG_DEFAULTS.endpoints.interface);
  const explicitRegion = checkedRegion(input, layers.pick(O.regionName));
  const region = sources.chooseOptional('endpoints.region', [explicitRegion]);

  const imageUrl = sources.chooseOptional('endpoints.overrides.image', [
    layers.pick(O.glanceEndpoint), nova.glanceEndpointOverride, firstOf(nova.glanceApiServers)]);
  const placementUrl = sources.chooseOptional('endpoints.overrides.placement', [
    layers.pick(O.placementEndpoint), nova.placementEndpointOverride]);

  const service = (name: 'image' | 'placement', url: string | undefined,
    novaInterfaces: Sourced<readonly EndpointInterface[]> | undefined, novaRegion: Sourced<string> | undefined): ServiceEndpointConfig => {
    const single = explicitInterface === undefined ? undefined : { value: [explicitInterface.value], source: explicitInterface.source };
    const interfaces = sources.choose(`endpoints.${name}.interfaces`, [single, novaInterfaces], [iface]);
    const serviceRegion = sources.chooseOptional(`endpoints.${name}.region`, [explicitRegion, novaRegion]);
    if (url !== undefined) sources.record(`endpoints.${name}.url`, { kind: 'derived', label: `endpoints.overrides.${name}` });
    return { ...(url === undefined ? {} : { url }), interfaces, ...(serviceRegion === undefined ? {} : { region: serviceRegion }) };
  };

  return {
    interface: iface,
    ...(region === undefined ? {} : { region }),
    overrides: { ...(imageUrl === undefined ? {} : { image: imageUrl }), ...(placementUrl === undefined ? {} : { placement: placementUrl }) },
    image: service('image', imageUrl, nova.glanceValidInterfaces, nova.glanceRegionName),
    placement: service('placement', placementUrl, nova.placementValidInterfaces, nova.placementRegionName),
  };
}

/**
 * TLS: --os-cacert / --os-cert / --os-key / --insecure and their variables and clouds.yaml keys, then nova.conf's
 * `[glance]` cafile / certfile / keyfile / insecure. The certificate and its key come as a pair from one layer: a key
 * from one place and a certificate from another would never match. A key without a certificate is a problem.
 */
export function resolveTls(input: EndpointInputs): TlsConfig {
  const { layers, nova, sources, cwd, issues } = input;
  const caFile = sources.chooseOptional('tls.caFile', [layers.pick(O.cacert), nova.glanceCafile]);
  const insecure = sources.choose('tls.verify', [layers.pick(O.insecure), nova.glanceInsecure], !CONFIG_DEFAULTS.tls.verify);
  const given = { cert: layers.pick(O.cert), key: layers.pick(O.key) };
  const pair = given.cert !== undefined || given.key !== undefined ? given : { cert: nova.glanceCertfile, key: nova.glanceKeyfile };
  if (pair.key !== undefined && pair.cert === undefined) {
    issues.add(pair.key.source, `${pair.key.source.label}: a client key without a client certificate; give the certificate too `
      + '(--os-cert, OS_CERT, clouds.yaml cert or nova.conf [glance] certfile)');
  }
  const certFile = pair.cert === undefined ? undefined : sources.chooseOptional('tls.certFile', [pair.cert]);
  const keyFile = pair.cert === undefined ? undefined : sources.chooseOptional('tls.keyFile', [pair.key]);
  return {
    ...(caFile === undefined ? {} : { caFile: resolve(cwd, caFile) }),
    ...(certFile === undefined ? {} : { certFile: resolve(cwd, certFile) }),
    ...(keyFile === undefined ? {} : { keyFile: resolve(cwd, keyFile) }),
    verify: !insecure,
  };
}

/**
 * A cloud with a `regions` list: the region must be one of them (openstacksdk's rule), and without one the first
 * is used.
 */
function checkedRegion(input: EndpointInputs, given: Sourced<string> | undefined): Sourced<string> | undefined {
  const cloud = input.layers.cloud;
  const regions = cloud?.regions ?? [];
  if (cloud === undefined || regions.length === 0) return given;
  if (given === undefined) {
    const first = regions[0];
    const listSource = cloud.get('regions')?.source;
    return first === undefined || listSource === undefined
      ? undefined
      : { value: first, source: { kind: 'file', label: `${listSource.label}.0` } };
  }
  if (!regions.includes(given.value)) {
    input.issues.invalidValue(given.source, `one of the regions of cloud '${cloud.name}' (${regions.join(', ')})`, given.value);
    return undefined;
  }
  return given;
}

function firstOf(list: Sourced<readonly string[]> | undefined): Sourced<string> | undefined {
  const first = list?.value[0];
  return list === undefined || first === undefined ? undefined : { value: first, source: list.source };
}
