import { toPage } from './pagination';

describe('toPage', () => {
  it('reports has_more only when a row beyond the limit was fetched', () => {
    expect(toPage([1, 2, 3], 2, (n) => n * 10)).toEqual({ items: [10, 20], has_more: true });
    expect(toPage([1, 2], 2, (n) => n)).toEqual({ items: [1, 2], has_more: false });
  });
});
