// The two "image busy" 409s need timing: a second request while a copy runs (Image has active task), and
// simultaneous requests where one loses the lock race (New operation ... not permitted).
import type { GlanceSession } from './glance-session.js';
import type { Answer, CallSpec } from './recorder.js';
import { expectStatus, stringField } from './recorder.js';

const ACTIVE_TASK_TRIES = 5;
const RACE_ROUNDS = 10;
const RACE_WIDTH = 4;
const BIG_IMAGE_MIB = 64;

function message(answer: Answer): string {
  return stringField(answer.body, 'message') ?? '';
}

function copySpec(g: GlanceSession, id: string, store: string): CallSpec {
  return {
    method: 'POST',
    url: `${g.imageUrl(id)}/import`,
    token: g.admin,
    json: { method: { name: 'copy-image' }, stores: [store] },
  };
}

/** Returns the id of the 64 MiB image it used (on site-a, possibly also on site-b/central), for reuse. */
export async function recordActiveTask409(g: GlanceSession): Promise<string> {
  const id = await g.activeImage('big', BIG_IMAGE_MIB, 'site-a');
  for (let attempt = 1; attempt <= ACTIVE_TASK_TRIES; attempt++) {
    const spec = copySpec(g, id, 'site-b');
    expectStatus(await g.rec.call(spec), 202, 'first copy');
    const second = await g.rec.call(spec);
    await g.waitUnlocked(id);
    if (second.status === 409 && message(second).includes('Image has active task')) {
      g.rec.save('glance', 'import-409-active-task', spec, second);
      if (attempt > 1) g.rec.note(`import-409-active-task needed ${attempt} tries`);
      return id;
    }
    await g.removeFromStore(id, 'site-b');
  }
  g.rec.note(`import-409-active-task: not produced in ${ACTIVE_TASK_TRIES} tries (${BIG_IMAGE_MIB} MiB copy finished first)`);
  return id;
}

export async function recordNewOperation409(g: GlanceSession, id: string): Promise<void> {
  const seen = new Map<string, number>();
  for (let round = 1; round <= RACE_ROUNDS; round++) {
    const spec = copySpec(g, id, 'central');
    const answers = await Promise.all(Array.from({ length: RACE_WIDTH }, () => g.rec.call(spec)));
    await g.waitUnlocked(id);
    for (const a of answers) {
      const text = message(a).replace(/<br \/>[\s\S]*$/, '').replace(/'[0-9a-f-]{36}'/, "'<id>'");
      const key = text.length > 0 ? `${a.status} ${text}` : String(a.status);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const loser = answers.find((a) => a.status === 409 && message(a).includes('New operation'));
    if (loser) {
      g.rec.save('glance', 'import-409-new-operation', spec, loser);
      g.rec.note(`import-409-new-operation: race loser seen in round ${round}; answers so far: ${summary(seen)}`);
      return;
    }
    const image = await g.get(id);
    if (stringField(image.body, 'stores')?.split(',').includes('central') === true) await g.removeFromStore(id, 'central');
  }
  g.rec.note(`import-409-new-operation: no race loser in ${RACE_ROUNDS} rounds of ${RACE_WIDTH} concurrent POSTs; answers: ${summary(seen)}`);
}

function summary(seen: ReadonlyMap<string, number>): string {
  return [...seen].map(([k, n]) => `${n}x ${k}`).join('; ');
}
