// The answer-time histogram, the median read from it and the day and hour of an instant.
import { describe, expect, it } from 'vitest';
import { ANSWER_MS_BUCKETS, answerMsBucket, dayString, medianAnswerMs, oneAt, utcDay } from '../aggregates.ts';

describe('answer-time histogram', () => {
  it('puts a time in the bucket whose bounds hold it', () => {
    expect(answerMsBucket(0)).toBe(0);
    expect(answerMsBucket(49)).toBe(0);
    expect(answerMsBucket(50)).toBe(1);
    expect(answerMsBucket(999)).toBe(ANSWER_MS_BUCKETS.indexOf(750));
    expect(answerMsBucket(1000)).toBe(ANSWER_MS_BUCKETS.indexOf(1000));
    expect(answerMsBucket(3_600_000)).toBe(ANSWER_MS_BUCKETS.length - 1);
    expect(answerMsBucket(-5)).toBe(0);
    expect(answerMsBucket(Number.NaN)).toBe(0);
  });

  it('is strictly increasing from 0', () => {
    expect(ANSWER_MS_BUCKETS[0]).toBe(0);
    for (let i = 1; i < ANSWER_MS_BUCKETS.length; i++) expect(ANSWER_MS_BUCKETS[i]).toBeGreaterThan(ANSWER_MS_BUCKETS[i - 1]);
  });

  it('reads the median from the histogram', () => {
    expect(medianAnswerMs([])).toBeNull();
    const at = (ms: number) => oneAt(ANSWER_MS_BUCKETS.length, answerMsBucket(ms));
    // One answer in [1000, 1500): the middle of the bucket.
    expect(medianAnswerMs(at(1200))).toBe(1250);
    // Three in [100, 200), one in [5000, 7500): inside the first bucket.
    const sum = [at(120), at(150), at(180), at(6000)].reduce((a, b) => a.map((v, i) => v + b[i]));
    const median = medianAnswerMs(sum)!;
    expect(median).toBeGreaterThanOrEqual(100);
    expect(median).toBeLessThan(200);
    expect(medianAnswerMs(at(90_000))).toBe(60_000);
    // Stored arrays may hold nulls or be short.
    expect(medianAnswerMs([null, 2])).toBe(75);
  });
});

it('takes the UTC day and its date string', () => {
  const at = new Date('2026-03-01T23:30:00-02:00');
  expect(utcDay(at).toISOString()).toBe('2026-03-02T00:00:00.000Z');
  expect(dayString(at)).toBe('2026-03-02');
});
