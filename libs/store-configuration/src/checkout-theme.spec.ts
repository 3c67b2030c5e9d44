import {
  contrastRatio,
  DEFAULT_CHECKOUT_COLORS,
  errorTextColor,
  merchantConfigurationPatchSchema,
  readableCheckoutColors,
  unreadableColorPair,
} from './index';

describe('checkout colours', () => {
  it('takes #rgb and #rrggbb only, as lower-case #rrggbb', () => {
    const parse = (color: unknown) =>
      merchantConfigurationPatchSchema.safeParse({ checkout_colors: { main_color: color } });
    expect(parse('#ABC')).toMatchObject({
      success: true,
      data: { checkout_colors: { main_color: '#aabbcc' } },
    });
    expect(parse('#1F4FD8')).toMatchObject({ data: { checkout_colors: { main_color: '#1f4fd8' } } });
    for (const bad of ['red', '#abcd', '#12345g', '1f4fd8', 'rgb(0,0,0)', '#fff;}body{x:y', ' #fff', 3])
      expect(parse(bad).success).toBe(false);
    expect(
      merchantConfigurationPatchSchema.safeParse({ checkout_colors: { link_color: '#000000' } }).success,
    ).toBe(false);
  });

  it('measures contrast as WCAG 2 does', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#fff', '#fff')).toBe(1);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('finds text below 4.5:1 on its background, and keeps the defaults readable', () => {
    expect(unreadableColorPair(DEFAULT_CHECKOUT_COLORS)).toBeNull();
    const pale = { ...DEFAULT_CHECKOUT_COLORS, main_color: '#ffee58' };
    expect(unreadableColorPair(pale)).toMatchObject({ text: 'main_text', background: 'main_color' });
    expect(readableCheckoutColors(pale)).toEqual(DEFAULT_CHECKOUT_COLORS);
    const dark = {
      ...DEFAULT_CHECKOUT_COLORS,
      main_background: '#202124',
      primary_text: '#ffffff',
      secondary_text: '#bdc1c6',
    };
    expect(readableCheckoutColors(dark)).toBe(dark);
    // errors stay readable on a dark card
    expect(contrastRatio(errorTextColor(dark), dark.main_background)).toBeGreaterThanOrEqual(4.5);
    expect(errorTextColor(DEFAULT_CHECKOUT_COLORS)).toBe('#b3261e');
  });
});
