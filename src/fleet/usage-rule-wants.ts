import type { CopyFacts } from './copy-facts.js';
import { ownedBy } from './project-owners.js';
import type { UsageRule } from './sync-policy.js';

/**
 * Pure: the images each usage rule keeps, by store. An image's use is counted over every store whose pool was read:
 * `clones`, the instances cloned from its copies now (trash included); `boots`, those made in the last `days` (a boot
 * whose instance was deleted since is gone with its clone). The `keepMostUsed` images with the most use (ties: by
 * id, in code-unit order) are wanted in each of the rule's stores; an image nobody uses is never "most used". Only
 * the images of the rule's owners (`ownersOf(rule)`, project-owners.ts) are counted: any project may boot its own image
 * at every site, and counted it would be copied to every store of the rule and kept there, pushing the operator's out.
 */
export function usageRuleWants(rules: readonly UsageRule[], copies: readonly (readonly CopyFacts[])[], wallNowMs: number,
  ownersOf: (rule: UsageRule) => ReadonlySet<string>): ReadonlyMap<string, ReadonlyMap<string, readonly string[]>> {
  const wants = new Map<string, Map<string, string[]>>();
  for (const rule of rules) {
    const since = wallNowMs - rule.days * 86_400_000;
    const owners = ownersOf(rule);
    const use = new Map<string, number>();
    // Indexed: 100 000 copies at fleet scale, mostly before the optimizing compiler has this (an iterator's result is
    // an object per step until then).
    for (const store of copies) {
      for (let i = 0; i < store.length; i++) {
        const copy = store[i] as CopyFacts;
        if (!ownedBy(copy.owner, owners)) continue;
        const count = rule.by === 'clones' ? copy.clones : copy.cloneTimesMs.filter((time) => time >= since).length;
        if (count > 0) use.set(copy.imageId, (use.get(copy.imageId) ?? 0) + count);
      }
    }
    // Ties by id in code-unit order, as eviction breaks them (plan-eviction.ts): locale-free, and no collator call
    // per comparison (a fleet's listing has thousands of images with clones).
    const kept = [...use].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, rule.keepMostUsed).map(([id]) => id);
    for (const store of rule.stores) {
      const inStore = wants.get(store) ?? new Map<string, string[]>();
      wants.set(store, inStore);
      for (const id of kept) inStore.set(id, [...(inStore.get(id) ?? []), rule.name]);
    }
  }
  return wants;
}
