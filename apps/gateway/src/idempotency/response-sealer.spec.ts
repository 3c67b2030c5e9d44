import { ResponseSealer } from './response-sealer';

describe('ResponseSealer', () => {
  const sealer = new ResponseSealer('k'.repeat(32));
  const body = '{"secret":"s3cr3t-value","last_four":"4242"}';

  it('round-trips and hides the text', () => {
    const sealed = sealer.seal(body, 'record-1');
    expect(sealed).not.toContain('s3cr3t');
    expect(sealer.open(sealed, 'record-1')).toBe(body);
  });

  it('refuses another record, another key or a changed byte', () => {
    const sealed = sealer.seal(body, 'record-1');
    expect(sealer.open(sealed, 'record-2')).toBeNull();
    expect(new ResponseSealer('x'.repeat(32)).open(sealed, 'record-1')).toBeNull();
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[3], 'base64');
    ciphertext[0] ^= 1;
    parts[3] = ciphertext.toString('base64');
    expect(sealer.open(parts.join('.'), 'record-1')).toBeNull();
    expect(sealer.open('garbage', 'record-1')).toBeNull();
  });

  it('opens what a previous secret sealed (records stored before the switch), and seals under the current one', () => {
    const legacy = new ResponseSealer('j'.repeat(32));
    const switched = new ResponseSealer('i'.repeat(32), ['j'.repeat(32)]);
    const before = legacy.seal(body, 'record-1');
    expect(switched.open(before, 'record-1')).toBe(body);
    expect(switched.open(before, 'record-2')).toBeNull();
    const after = switched.seal(body, 'record-1');
    expect(new ResponseSealer('i'.repeat(32)).open(after, 'record-1')).toBe(body);
    expect(legacy.open(after, 'record-1')).toBeNull();
  });
});
