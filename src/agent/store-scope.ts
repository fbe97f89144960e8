import { FerryError } from '../errors/ferry-error.js';
import type { HealthCheck } from '../host/host-service.js';

/**
 * The stores this agent serves. It acts with its own credentials, so a caller in the socket's group must not make it
 * copy into any store of the cloud (another site's pool, its import lock, data leaving the region): only the host's
 * own store, or the stores the operator listed.
 */
export interface StoreScope {
  /** The store a request without `store` gets (--store / nova.conf images_rbd_glance_store_name); undefined: none. */
  readonly defaultStore: string | undefined;
  /** --allow-store: the stores served, when given (e.g. two stores of this host's one cluster). */
  readonly allowList: readonly string[] | undefined;
}

export type StoreDecision =
  | { readonly kind: 'serve'; readonly store: string }
  /** Neither the request nor the agent names a store. */
  | { readonly kind: 'no-store' }
  | { readonly kind: 'not-allowed'; readonly store: string; readonly served: readonly string[] };

/** The allow-list when given, else the agent's own store (none when it has none). Pure. */
export function servedStores(scope: StoreScope): readonly string[] {
  return scope.allowList ?? (scope.defaultStore === undefined ? [] : [scope.defaultStore]);
}

/** Whether a request for `requested` (undefined: the default) is served, from the request and the scope alone. Pure. */
export function decideStore(requested: string | undefined, scope: StoreScope): StoreDecision {
  const store = requested ?? scope.defaultStore;
  if (store === undefined) return { kind: 'no-store' };
  const served = servedStores(scope);
  return served.includes(store) ? { kind: 'serve', store } : { kind: 'not-allowed', store, served };
}

/** A refusal as the error the caller gets. */
export function storeRefusal(decision: Exclude<StoreDecision, { kind: 'serve' }>): FerryError {
  if (decision.kind === 'no-store') {
    return new FerryError('FERRY_INVALID_OPTION', 'no store in the request and none configured on the agent',
      'Send "store" in the request, or start the agent with --store / --nova-conf ([libvirt] images_rbd_glance_store_name).');
  }
  const serves = decision.served.length === 0 ? 'serves no store'
    : `serves store${decision.served.length > 1 ? 's' : ''} ${decision.served.map((store) => `'${store}'`).join(', ')} only`;
  return new FerryError('FERRY_STORE_NOT_ALLOWED', `store '${decision.store}' is not served here: this ferry agent ${serves}`,
    'Ask for this host\'s own store (nova.conf [libvirt] images_rbd_glance_store_name must match the agent\'s --store), or, if '
    + 'this host\'s cluster really is that store too, add it to the agent with --allow-store. `ferry ensure --no-agent` copies '
    + 'with your own credentials instead.', { store: decision.store, served: [...decision.served] });
}

/** The /healthz check `stores`: failing when the agent serves nothing, or its own store is not in its allow-list. Pure. */
export function judgeStoreScope(scope: StoreScope): HealthCheck {
  const served = servedStores(scope);
  if (served.length === 0) {
    return { ok: false, code: 'FERRY_INVALID_OPTION', message: 'the agent serves no store, so it refuses every request: give it --store '
      + '(or --nova-conf with [libvirt] images_rbd_glance_store_name), or --allow-store' };
  }
  if (scope.defaultStore !== undefined && !served.includes(scope.defaultStore)) {
    return { ok: false, code: 'FERRY_INVALID_OPTION', message: `the agent's own store '${scope.defaultStore}' (--store / nova.conf) is not `
      + `in --allow-store ${served.join(', ')}, so requests for it are refused: add it to --allow-store` };
  }
  return { ok: true };
}
