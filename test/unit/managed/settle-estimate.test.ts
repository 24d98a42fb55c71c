import { describe, expect, it } from 'vitest';
import { SettleEstimate } from '../../../src/managed/settle-estimate.ts';

describe('SettleEstimate', () => {
  it('starts at its initial first look, kept within floor and cap', () => {
    expect(new SettleEstimate(2_000, 250, 30_000).firstLookMs()).toBe(2_000);
    expect(new SettleEstimate(100, 250, 30_000).firstLookMs()).toBe(250);
    expect(new SettleEstimate(60_000, 250, 30_000).firstLookMs()).toBe(30_000);
  });

  it('moves to the middle of a wait that was seen moving, then settled', () => {
    const estimate = new SettleEstimate(2_000, 250, 30_000);
    estimate.learn(16_000, 14_000);
    expect(estimate.firstLookMs()).toBe(15_000);
  });

  it('never looks first later than the cap, however long the cloud took', () => {
    const estimate = new SettleEstimate(2_000, 250, 30_000);
    estimate.learn(600_000, 300_000);
    expect(estimate.firstLookMs()).toBe(30_000);
  });

  it('shrinks from the earlier of its estimate and the settle, when the first look found the cloud settled', () => {
    const estimate = new SettleEstimate(2_000, 250, 30_000);
    // Woken by a list 400 ms after the write, already settled: the cloud took at most 400 ms.
    estimate.learn(400);
    expect(estimate.firstLookMs()).toBe(300);
    // A first look that came late (a busy queue) and found it settled: still a quarter less, to the floor.
    estimate.learn(5_000);
    expect(estimate.firstLookMs()).toBe(250);
  });
});
