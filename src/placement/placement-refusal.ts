import { FerryError } from '../errors/ferry-error.js';
import { httpErrorDetails, httpStatusError } from '../openstack/http-status-error.js';
import { serverMessage } from '../openstack/server-message.js';
import type { ServiceResponse } from '../openstack/service-client.js';

// Placement's refusals (placement-and-traits.md §6, keystone.md §8) turned into ferry's codes. Each function takes
// the answer as received; the caller decides which statuses it expects.

const POLICY = /Policy does not allow (\S+) to be performed/;
const UNKNOWN_TRAITS = /No such trait(?:\(s\))?:?\s+(.+?)\.?\s*$/;

function context(response: ServiceResponse): { method: string; url: string; service: string } {
  const space = response.endpoint.indexOf(' ');
  return { method: response.endpoint.slice(0, space), url: response.endpoint.slice(space + 1), service: 'Placement' };
}

/** Placement's `errors[0].code` (`placement.concurrent_update`), when the body has one. */
export function placementErrorCode(response: ServiceResponse): string | undefined {
  const body = response.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const code = (errors[0] as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The trait names a 400 says do not exist (`No such trait X` / `No such trait(s): X, Y.`); empty for other 400s. */
export function unknownTraitsIn(response: ServiceResponse): readonly string[] {
  const match = UNKNOWN_TRAITS.exec(serverMessage(response.body) ?? '');
  return match?.[1] === undefined ? [] : match[1].split(/,\s*/).map((name) => name.trim()).filter((name) => name !== '');
}

/** 403: name the policy rule Placement quotes, and who passes it on a stock Placement 8.0.0. */
export function placementForbidden(response: ServiceResponse): FerryError {
  const said = serverMessage(response.body);
  const policy = POLICY.exec(said ?? '')?.[1];
  const message = policy === undefined
    ? `Placement refused ${response.endpoint} by policy${said === undefined ? '' : `: ${said}`}`
    : `Placement refused ${response.endpoint}: its policy rule ${policy} does not allow this account`;
  return new FerryError('FERRY_FORBIDDEN', message,
    `Placement's stock rules let only admins do this (role admin on a project, or a system-scoped admin/reader): use the ` +
      `account nova-compute reports with ([placement] in nova.conf), or have the operator grant ${policy ?? 'the rule'} in ` +
      "Placement's policy file.",
    { ...httpErrorDetails(response, context(response)), ...(policy === undefined ? {} : { policy }) });
}

/** 404 on a provider's own URL. */
export function providerNotFound(ref: string, response: ServiceResponse | undefined): FerryError {
  return new FerryError('FERRY_PROVIDER_NOT_FOUND', `Placement has no resource provider ${ref}`,
    'Check the name or UUID (openstack resource provider list); nova-compute creates its compute node\'s provider, named ' +
      'after the hypervisor hostname, when it first starts.',
    { provider: ref, ...(response === undefined ? {} : httpErrorDetails(response, context(response))) });
}

/** 400 naming traits Placement does not have. */
export function traitsRefused(names: readonly string[], response: ServiceResponse): FerryError {
  return new FerryError('FERRY_UNKNOWN_TRAIT',
    `Placement does not know the trait(s) ${names.join(', ')}, so it refused ${response.endpoint}`,
    'Standard traits come from the os-traits Placement runs; CUSTOM_ traits must be created first (PUT /traits/CUSTOM_…). ' +
      'Build ferry\'s catalogue from Placement (the default of `ferry traits report`) so it leaves such names out.',
    { ...httpErrorDetails(response, context(response)), unknown: names });
}

/** Any other refusal: the generic mapping, with Placement's own message. */
export function placementHttpError(response: ServiceResponse): FerryError {
  return httpStatusError(response, context(response));
}
