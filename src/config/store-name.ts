import { z } from 'zod';

/** A Glance store id as ferry accepts it everywhere (flags, nova.conf, policies, the agent's requests). */
export const STORE_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
export const STORE_NAME_RULE = 'letters, digits, _ . - only';
/** The one store-name rule; `message` only words it for where it is read (a policy file says "a store name is …"). */
export const storeNameSchema = (message = STORE_NAME_RULE): z.ZodString => z.string().regex(STORE_NAME_PATTERN, message);
