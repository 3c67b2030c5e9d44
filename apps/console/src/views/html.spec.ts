import { html, raw } from './html';

describe('html', () => {
  it('escapes interpolated text, lists included, and keeps Html as it is', () => {
    const name = '<script>alert("x")</script>&\'';
    const list = [html`<b>${'<i>'}</b>`, '<u>'];
    const page = html`<p title="${name}">${name}</p>
      ${list}${raw('<br>')}`;
    // (the formatter lays tagged templates out as HTML: line breaks between tags are its own)
    expect(page.text.replace(/\n\s*/g, '')).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p><b>&lt;i&gt;</b>&lt;u&gt;<br>',
    );
  });

  it('leaves out null, undefined and false', () => {
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0');
  });
});
