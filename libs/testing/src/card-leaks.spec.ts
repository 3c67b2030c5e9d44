import { luhnValidRuns, standalone } from './card-leaks';

describe('card leak probes', () => {
  it('finds a card number in any form, and not the fraction of a number', () => {
    const pan = '4000056655665556';
    expect(luhnValidRuns(`{"number":"${pan}"}`)).toEqual([pan]);
    expect(luhnValidRuns('card 4000 0566 5566 5556 here')).toEqual([pan]);
    expect(luhnValidRuns('card 4000-0566-5566-5556')).toEqual([pan]);
    // a Luhn-valid fraction of a duration is not a card number
    expect(luhnValidRuns('{"durationMs":12.8416785858234}')).toEqual([]);
    expect(luhnValidRuns(`{"durationMs":12.${pan}}`)).toEqual([]);
  });

  it('finds a CVV standing alone, not inside an id', () => {
    expect('{"cvv":"987"}').toMatch(standalone('987'));
    expect('e3b1dab9-4f02-402a-9871-7ea93ee6d5fb').not.toMatch(standalone('987'));
  });
});
