import { barChart } from './charts';
import { successRate } from './overview';

describe('barChart', () => {
  const chart = (values: (number | null)[], max?: number) =>
    barChart({
      id: 'c',
      title: 'Volume <b>',
      description: 'per day',
      bars: values.map((value, i) => ({ label: `2026-01-0${i + 1}`, value, text: String(value) })),
      max,
      format: (value) => `${value}!`,
    }).text;

  it('is an image named by its title and description, its text escaped', () => {
    const svg = chart([1, 2]);
    expect(svg).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="c-title c-desc"/);
    expect(svg).toContain('<title id="c-title">Volume &lt;b&gt;</title>');
    expect(svg).toContain('<desc id="c-desc">per day</desc>');
    expect(svg).not.toContain('style=');
  });

  it('draws one bar per value, as high as its share of the largest, and none for a missing value', () => {
    const heights = [...chart([4, null, 2, 0]).matchAll(/height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toHaveLength(3);
    expect(heights[1]).toBeCloseTo(heights[0] / 2);
    expect(heights[2]).toBe(0);
    // the scale: the largest value on top, or the one given
    expect(chart([4, 2])).toContain('>4!</text>');
    expect(chart([4, 2], 100)).toContain('>100!</text>');
  });

  it('draws an empty scale for a range of zeros', () => {
    expect(chart([0, 0])).toContain('>0!</text>');
  });
});

describe('successRate', () => {
  it('is successful ÷ finished with one decimal, rounded half up; a dash when nothing finished', () => {
    expect(successRate(3n, 4n)).toBe('75.0 %');
    expect(successRate(2n, 3n)).toBe('66.7 %');
    expect(successRate(1n, 3n)).toBe('33.3 %');
    expect(successRate(1n, 1n)).toBe('100.0 %');
    expect(successRate(0n, 0n)).toBe('—');
  });
});
