import { distinctBatches } from '../../../areas/payments/payments/upsert-batches';

describe('distinctBatches', () => {
  const key = (s: string) => s.split(':')[0];

  it('cuts at the size and keeps the order', () => {
    expect(distinctBatches(['a', 'b', 'c', 'd', 'e'], key, 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(distinctBatches([], key, 2)).toEqual([]);
  });

  it('starts a new batch at a repeated key, so each batch touches a row once and a later state comes after', () => {
    expect(distinctBatches(['a:1', 'b', 'a:2', 'c', 'a:3'], key, 10)).toEqual([['a:1', 'b'], ['a:2', 'c'], ['a:3']]);
  });
});
