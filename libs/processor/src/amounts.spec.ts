import {
  AmountOutOfRangeError,
  checkWireAmount,
  fromProcessorAmount,
  isProcessorAmount,
  toProcessorAmount,
} from './amounts';

const MAX = Number.MAX_SAFE_INTEGER;

describe('amounts at the processor wire', () => {
  it('converts bigint minor units up to 2^53 - 1 exactly', () => {
    expect(toProcessorAmount(1000n)).toBe(1000);
    expect(toProcessorAmount(9_999_999_999n)).toBe(9_999_999_999);
    expect(toProcessorAmount(BigInt(MAX))).toBe(MAX);
    expect(isProcessorAmount(BigInt(MAX))).toBe(true);
  });

  it('refuses a bigint past 2^53 - 1, which a JSON number would round', () => {
    expect(isProcessorAmount(BigInt(MAX) + 1n)).toBe(false);
    expect(() => toProcessorAmount(BigInt(MAX) + 1n)).toThrow(AmountOutOfRangeError);
    expect(() => toProcessorAmount(-BigInt(MAX) - 1n)).toThrow(AmountOutOfRangeError);
  });

  it('reads answered amounts as bigint, refusing fractions and unsafe integers', () => {
    expect(fromProcessorAmount(600)).toBe(600n);
    expect(fromProcessorAmount(0)).toBe(0n);
    expect(() => fromProcessorAmount(MAX + 1)).toThrow(AmountOutOfRangeError);
    expect(() => fromProcessorAmount(12.5)).toThrow(AmountOutOfRangeError);
  });

  it('refuses to send a number that is no safe integer', () => {
    expect(checkWireAmount(1)).toBe(1);
    expect(() => checkWireAmount(2 ** 53)).toThrow(AmountOutOfRangeError);
    expect(() => checkWireAmount(Number.NaN)).toThrow(AmountOutOfRangeError);
  });
});
