import { describe, expect, it } from 'vitest';
import { usageRequest } from '../../../test/usage-fixtures';
import { usageCsv, usageCsvFileName } from '../usage-csv';

const HEADER = 'Date,Chatbot,Model,Prompt Tokens,Completion Tokens,Total Tokens,Cost ($)';

describe('usageCsv', () => {
  it('exports nothing when there are no records', () => {
    expect(usageCsv([])).toBeNull();
  });

  it("has the export's columns and one row per record, cost to 5 decimals", () => {
    const csv = usageCsv([
      usageRequest(),
      usageRequest({
        requestId: 'r2',
        timestamp: '2025-03-05T08:30:00.000Z',
        totalCost: '0.0000125',
        promptTokens: 5,
        completionTokens: 7,
        totalTokens: 12,
      }),
    ]);
    expect(csv).toBe(
      `${HEADER}\r\n` +
        '2025-03-04T10:00:00.000Z,support bot,GPT-4o mini,1200,300,1500,0.00036\r\n' +
        '2025-03-05T08:30:00.000Z,support bot,GPT-4o mini,5,7,12,0.00001\r\n',
    );
  });

  it('says "your key" of an answer on the workspace\'s own provider key, its cost the fee', () => {
    const csv = usageCsv([usageRequest({ ownKey: true, totalCost: '0' }), usageRequest({ model: null, ownKey: true })]);
    expect(csv?.split('\r\n').slice(1, 3)).toEqual([
      '2025-03-04T10:00:00.000Z,support bot,GPT-4o mini (your key),1200,300,1500,0.00000',
      '2025-03-04T10:00:00.000Z,support bot,N/A (your key),1200,300,1500,0.00036',
    ]);
  });

  it('rounds the cost exactly, half away from zero', () => {
    const csv = usageCsv([usageRequest({ totalCost: '0.000155' }), usageRequest({ totalCost: '2' })]) ?? '';
    expect(
      csv
        .split('\r\n')
        .slice(1, 3)
        .map((line) => line.split(',').at(-1)),
    ).toEqual(['0.00016', '2.00000']);
  });

  it('shows N/A for a deleted chatbot and an unknown model', () => {
    const csv = usageCsv([usageRequest({ chatbot: null, model: null })]) ?? '';
    expect(csv.split('\r\n')[1]).toBe('2025-03-04T10:00:00.000Z,N/A,N/A,1200,300,1500,0.00036');
  });

  it('quotes chatbot names with commas or quotes and defuses formulas', () => {
    const csv =
      usageCsv([
        usageRequest({ chatbot: { __typename: 'UsageChatbot', _id: 'c1', name: 'Sales, "EU"' } }),
        usageRequest({ chatbot: { __typename: 'UsageChatbot', _id: 'c2', name: '=HYPERLINK("http://x","y")' } }),
        usageRequest({ chatbot: { __typename: 'UsageChatbot', _id: 'c3', name: '@bot' } }),
        usageRequest({ model: { __typename: 'UsageModel', displayName: '+model' } }),
      ]) ?? '';
    const rows = csv.split('\r\n');
    expect(rows[1]).toBe('2025-03-04T10:00:00.000Z,"Sales, ""EU""",GPT-4o mini,1200,300,1500,0.00036');
    expect(rows[2]).toBe(`2025-03-04T10:00:00.000Z,"'=HYPERLINK(""http://x"",""y"")",GPT-4o mini,1200,300,1500,0.00036`);
    expect(rows[3]).toBe("2025-03-04T10:00:00.000Z,'@bot,GPT-4o mini,1200,300,1500,0.00036");
    expect(rows[4]).toBe("2025-03-04T10:00:00.000Z,support bot,'+model,1200,300,1500,0.00036");
  });

  it('keeps a line break inside a name within one quoted field', () => {
    const csv = usageCsv([usageRequest({ chatbot: { __typename: 'UsageChatbot', _id: 'c1', name: 'two\nlines' } })]) ?? '';
    expect(csv).toContain(',"two\nlines",');
    expect(csv.split('\r\n')).toHaveLength(3);
  });
});

describe('usageCsvFileName', () => {
  it("is usage_data_{today's local YYYY-MM-DD}.csv", () => {
    expect(usageCsvFileName(new Date(2025, 0, 5, 23, 59))).toBe('usage_data_2025-01-05.csv');
    expect(usageCsvFileName(new Date(2025, 11, 31, 0, 0))).toBe('usage_data_2025-12-31.csv');
  });
});
