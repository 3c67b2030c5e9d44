import { LOGO_MAX_BYTES, logoContentType, logoRefusal } from './logo-image';

const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const jpeg = Buffer.from('ffd8ffe000104a464946', 'hex');
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);

describe('logo image', () => {
  it('knows PNG, JPEG and WebP by their magic bytes', () => {
    expect(logoContentType(png)).toBe('image/png');
    expect(logoContentType(jpeg)).toBe('image/jpeg');
    expect(logoContentType(webp)).toBe('image/webp');
    expect(logoContentType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(logoContentType(Buffer.from('GIF89a'))).toBeNull();
    expect(logoContentType(Buffer.from('RIFF\0\0\0\0WAVE'))).toBeNull();
    expect(logoContentType(png.subarray(0, 4))).toBeNull();
  });

  it('refuses an empty file, a large one, and anything else', () => {
    expect(logoRefusal(png)).toBeNull();
    expect(logoRefusal(Buffer.alloc(0))).toMatch(/empty/);
    expect(logoRefusal(Buffer.concat([png, Buffer.alloc(LOGO_MAX_BYTES)]))).toMatch(/256 KiB/);
    expect(logoRefusal(Buffer.from('<html>'))).toMatch(/PNG, JPEG or WebP/);
  });
});
