import { describe, expect, it } from 'vitest';
import { countByKind, FAULT_KINDS, OUTAGES, REMOVED_BEFORE_END_S, soakSchedule, type SoakEvent } from '../../../scripts/soak/schedule.js';

/** Seed 35's Glance outage before the removal was scheduled (the 60-minute run's report: minute 28.3): it stays. */
const GLANCE_OUTAGE_35 = 1701;
const faults = (events: readonly SoakEvent[]) => events.filter((e) => [...FAULT_KINDS, 'package-upgrade'].includes(e.kind));
const lasting = (e: SoakEvent): number => ('seconds' in e ? e.seconds : 0);

describe('the soak schedule', () => {
  it('is the same for the same seed (a failing run is replayed by its seed), and another seed gives another', () => {
    const one = soakSchedule({ seed: 35, minutes: 60, nodes: 4 });
    expect(soakSchedule({ seed: 35, minutes: 60, nodes: 4 })).toEqual(one);
    expect(soakSchedule({ seed: 36, minutes: 60, nodes: 4 }).events).not.toEqual(one.events);
  });

  it.each([
    [3, 1], [3, 2], [3, 7], [20, 3], [60, 35], [60, 2026],
  ])('%i minutes, seed %i: faults only between warm-up and cool-down, outages one at a time, ended before the cool-down', (minutes, seed) => {
    const schedule = soakSchedule({ seed, minutes, nodes: 4 });
    expect(schedule.seconds).toBe(minutes * 60);
    const injected = faults(schedule.events);
    expect(injected.length).toBeGreaterThanOrEqual(minutes >= 20 ? FAULT_KINDS.length : 3);
    for (const event of injected) {
      expect(event.at).toBeGreaterThanOrEqual(schedule.warmUpSeconds);
      expect(event.at + lasting(event)).toBeLessThanOrEqual(schedule.coolDownAt);
    }
    const outages = injected.filter((e) => OUTAGES.includes(e.kind));
    for (let i = 1; i < outages.length; i += 1) {
      expect(outages[i]!.at).toBeGreaterThanOrEqual(outages[i - 1]!.at + lasting(outages[i - 1]!));
    }
    expect(schedule.events.map((e) => e.at)).toEqual([...schedule.events.map((e) => e.at)].sort((a, b) => a - b));
  });

  it('a 60-minute run injects every fault kind, and its outages last past the alerts\' 5 minutes', () => {
    const schedule = soakSchedule({ seed: 35, minutes: 60, nodes: 4 });
    expect(Object.keys(countByKind(faults(schedule.events))).sort()).toEqual([...FAULT_KINDS].sort());
    for (const outage of schedule.events.filter((e) => e.kind === 'glance-outage' || e.kind === 'osd-stop')) {
      expect(lasting(outage)).toBeGreaterThan(300);
    }
  });

  it('uploads, prewarms and evictions of both sites run throughout, the cool-down included', () => {
    const schedule = soakSchedule({ seed: 7, minutes: 60, nodes: 4 });
    const counts = countByKind(schedule.events);
    expect(counts.upload).toBeGreaterThanOrEqual(5);
    expect(counts.evict).toBe(counts.upload);
    expect(counts.prewarm).toBeGreaterThan(0);
    expect(new Set(schedule.events.filter((e) => e.kind === 'evict').map((e) => 'site' in e && e.site))).toEqual(new Set(['site-a', 'site-b']));
    expect(schedule.events.some((e) => e.kind === 'evict' && e.at > schedule.coolDownAt)).toBe(true);
  });

  it('each node\'s boots: every kind of image, instances living 5-30 s, enough boots for the whole run', () => {
    const schedule = soakSchedule({ seed: 11, minutes: 3, nodes: 4 });
    expect(schedule.boots).toHaveLength(4);
    for (const plan of schedule.boots) {
      expect(plan.length).toBeGreaterThanOrEqual(90);
      expect(new Set(plan.map((b) => b.kind)).size).toBe(6);
      for (const boot of plan) {
        expect(boot.lifeSeconds).toBeGreaterThanOrEqual(5);
        expect(boot.lifeSeconds).toBeLessThanOrEqual(30);
      }
    }
  });

  it.each([
    [{ seed: -1, minutes: 3 }, 'seed must be a whole number ≥ 0, got -1'],
    [{ seed: 1.5, minutes: 3 }, 'seed must be a whole number ≥ 0, got 1.5'],
    [{ seed: 1, minutes: 0 }, 'minutes must be more than 0, got 0'],
  ])('refuses %j: %s', (options, message) => {
    expect(() => soakSchedule({ ...options, nodes: 4 })).toThrow(message);
  });

  it.each([[3, 15], [20, 3], [60, 35], [60, 36]])('%i minutes, seed %i: each planted copy is removed (the runbook\'s rbd rm) minutes later, seeded, before the cool-down', (minutes, seed) => {
    const schedule = soakSchedule({ seed, minutes, nodes: 4 });
    const forged = schedule.events.filter((e) => e.kind === 'forged-copy');
    expect(forged.length).toBeGreaterThan(0);
    for (const event of forged) {
      expect(event.removeAfter).toBeGreaterThan(0);
      expect(event.at + event.removeAfter).toBeLessThanOrEqual(Math.max(event.at + 1, Math.min(schedule.coolDownAt, schedule.seconds - REMOVED_BEFORE_END_S)));
      if (event.at + 300 <= schedule.seconds - REMOVED_BEFORE_END_S) expect(event.removeAfter).toBeGreaterThanOrEqual(120);
    }
    expect(soakSchedule({ seed, minutes, nodes: 4 }).events).toEqual(schedule.events);
  });

  it('the removal draws from a generator of its own: every other event of seed 35 is where it was before', () => {
    const events = soakSchedule({ seed: 35, minutes: 60, nodes: 4 }).events;
    expect(events.filter((e) => e.kind !== 'forged-copy').length + events.filter((e) => e.kind === 'forged-copy').length).toBe(events.length);
    expect(events.find((e) => e.kind === 'glance-outage')?.at).toBe(GLANCE_OUTAGE_35);
  });
});

describe('the soak schedule with a packaged node (the .deb upgraded under load)', () => {
  const upgrades = (events: readonly SoakEvent[]) => events.filter((e) => e.kind === 'package-upgrade');

  it.each([
    [10, 4], [10, 12], [20, 3], [60, 35], [60, 36],
  ])('%i minutes, seed %i: package-upgrade of that node once per cycle, in the fault window, no other fault meanwhile', (minutes, seed) => {
    const schedule = soakSchedule({ seed, minutes, nodes: 4, packagedNode: 3 });
    const found = upgrades(schedule.events);
    const cycles = Math.ceil(faults(schedule.events).length / (FAULT_KINDS.length + 1));
    expect(found.length).toBeGreaterThanOrEqual(minutes >= 20 ? 1 : 0);
    expect(found.length).toBeLessThanOrEqual(cycles);
    const injected = faults(schedule.events);
    for (const upgrade of found) {
      expect(upgrade).toMatchObject({ kind: 'package-upgrade', node: 3, seconds: expect.any(Number) });
      expect(upgrade.at).toBeGreaterThanOrEqual(schedule.warmUpSeconds);
      expect(upgrade.at + lasting(upgrade)).toBeLessThanOrEqual(schedule.coolDownAt);
      // Its slot is its own: the next fault starts after it.
      const next = injected.find((e) => e.at > upgrade.at);
      if (next) expect(next.at).toBeGreaterThanOrEqual(upgrade.at + lasting(upgrade));
    }
  });

  it('a 60-minute run injects every fault kind and the upgrade', () => {
    const schedule = soakSchedule({ seed: 35, minutes: 60, nodes: 4, packagedNode: 3 });
    expect(Object.keys(countByKind(faults(schedule.events))).sort()).toEqual([...FAULT_KINDS, 'package-upgrade'].sort());
  });

  it('without a packaged node the schedule is the one of before (replays of earlier seeds unchanged): no upgrade', () => {
    for (const seed of [15, 35, 36]) {
      const plain = soakSchedule({ seed, minutes: 60, nodes: 4 });
      expect(upgrades(plain.events)).toEqual([]);
      expect(plain.events.filter((e) => e.kind === 'glance-outage')[0]?.at).toBe(soakSchedule({ seed, minutes: 60, nodes: 4, packagedNode: undefined }).events.filter((e) => e.kind === 'glance-outage')[0]?.at);
    }
  });

  it('refuses a packaged node that is not one of the nodes', () => {
    expect(() => soakSchedule({ seed: 1, minutes: 10, nodes: 4, packagedNode: 4 })).toThrow('packagedNode must be one of the 4 nodes (0-3), got 4');
  });
});
