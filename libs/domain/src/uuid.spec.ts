import { isUuid, uuidV5 } from './uuid';

describe('uuidV5', () => {
  it("gives RFC 9562's value for the DNS namespace", () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('is the same for the same namespace and name, and differs otherwise', () => {
    const a = '0b0f5a4e-3a4c-4f7e-9d5e-2f1c7f0b8a11';
    const b = '7c7a1d9e-5b2e-4b55-8f0a-6a3e9b1f2c33';
    expect(uuidV5(a, 'customer-1')).toBe(uuidV5(a.toUpperCase(), 'customer-1'));
    expect(uuidV5(a, 'customer-1')).not.toBe(uuidV5(b, 'customer-1'));
    expect(uuidV5(a, 'customer-1')).not.toBe(uuidV5(a, 'customer-2'));
    expect(isUuid(uuidV5(a, 'ユーザー'))).toBe(true);
  });

  it('refuses a namespace that is no UUID', () => {
    expect(() => uuidV5('nope', 'x')).toThrow(TypeError);
  });
});
