import { FerryError } from '../../../src/errors/ferry-error.js';
import type { GlanceClient } from '../../../src/glance/glance-client.js';

/** One Glance call made acting for a user: the verb, and the user token it carried. */
export interface ActingCall {
  readonly verb: keyof GlanceClient;
  readonly token: string;
}

/**
 * `glanceActingFor` over a scripted Glance: every call is recorded with the user token it carried (read at the call, as
 * the service client reads it), and an image read with a token `sees` refuses shows nothing (404), as Glance does.
 */
export function actingGlance(base: GlanceClient, sees: (token: string) => boolean,
  /** Before an image lookup with this token answers (a slow Glance for one user). */
  hold: (token: string) => Promise<void> = () => Promise.resolve()): { calls: ActingCall[]; glanceActingFor: (userToken: () => string) => GlanceClient } {
  const calls: ActingCall[] = [];
  const glanceActingFor = (userToken: () => string): GlanceClient => {
    const record = (verb: keyof GlanceClient): string => {
      const token = userToken();
      calls.push({ verb, token });
      return token;
    };
    return {
      ...base,
      getImage: (id, call) => (sees(record('getImage')) ? base.getImage(id, call)
        : Promise.reject(new FerryError('FERRY_IMAGE_NOT_FOUND', `Glance has no image ${id}`, 'Check the ID.', { imageId: id, status: 404 }))),
      findImage: async (id, call) => {
        const token = record('findImage');
        await hold(token);
        return sees(token) ? base.findImage(id, call) : undefined;
      },
      requestCopy: (id, request, call) => { record('requestCopy'); return base.requestCopy(id, request, call); },
      listImageTasks: (id, call) => { record('listImageTasks'); return base.listImageTasks(id, call); },
    };
  };
  return { calls, glanceActingFor };
}
