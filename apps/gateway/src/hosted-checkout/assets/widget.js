// Kessai checkout widget (docs/hosted-checkout.md). A merchant's page embeds it with a secret-less,
// domain-bound app token:
//
//   <script src="https://<kessai>/checkout/widget.js"></script>
//   <button type="button" data-kessai-checkout data-app-id="<store app token jwt>">Pay by card</button>
//   <div data-kessai-inline data-app-id="<store app token jwt>"></div>
//
// or from script: KessaiCheckout.open({ appId, onToken }) / KessaiCheckout.inline(element, { appId, onToken }).
// The card form is a Kessai page in an iframe (framable only by the token's domains): card data goes
// from it straight to Kessai and never touches this page. The page gets the transaction token only
// (`onToken`, and a `kessai:token` event on the element), which its server charges with its secret.
(function () {
  'use strict';
  if (window.KessaiCheckout) return;
  var script = document.currentScript;
  var base = new URL(script ? script.src : location.href).origin;
  // a frame the browser refused to show (not in the token's domains) loads an error page that never
  // says it is ready
  var READY_AFTER_LOAD_MS = 2000;
  var READY_TIMEOUT_MS = 15000;
  var TEXT = {
    en: { close: 'Close', title: 'Card payment form', failed: 'The payment form could not be loaded.' },
    ja: { close: '閉じる', title: 'カード支払いフォーム', failed: '支払いフォームを読み込めませんでした。' },
  };
  var langOf = function (options) {
    var lang = options.lang || document.documentElement.lang || navigator.language || 'en';
    return String(lang).toLowerCase().indexOf('ja') === 0 ? 'ja' : 'en';
  };

  function frame(options, display) {
    var params = new URLSearchParams({
      app_id: options.appId,
      token_type: options.tokenType || 'one_time',
      lang: langOf(options),
      display: display,
    });
    var iframe = document.createElement('iframe');
    iframe.src = base + '/checkout/frame?' + params.toString();
    iframe.title = options.title || TEXT[langOf(options)].title;
    iframe.setAttribute('allow', 'payment');
    iframe.style.border = '0';
    iframe.style.width = '100%';
    iframe.style.height = '32rem';
    iframe.style.display = 'block';
    return iframe;
  }

  // messages from our frames only: their origin is Kessai's and their window is one we made
  function listen(iframe, handlers) {
    var ready = false;
    var onMessage = function (event) {
      if (event.origin !== base || event.source !== iframe.contentWindow) return;
      var data = event.data || {};
      if (data.type === 'kessai:ready') ready = true;
      else if (data.type === 'kessai:resize' && typeof data.height === 'number')
        iframe.style.height = Math.min(Math.max(data.height, 200), 2000) + 'px';
      else if (data.type === 'kessai:token' && handlers.token) handlers.token(data.token);
      else if (data.type === 'kessai:close' && handlers.close) handlers.close();
    };
    window.addEventListener('message', onMessage);
    var failed = false;
    var check = function () {
      if (!ready && !failed && handlers.failed) {
        failed = true;
        handlers.failed();
      }
    };
    var timer = setTimeout(check, READY_TIMEOUT_MS);
    var afterLoad = null;
    var onLoad = function () {
      clearTimeout(afterLoad);
      afterLoad = setTimeout(check, READY_AFTER_LOAD_MS);
    };
    iframe.addEventListener('load', onLoad);
    return function () {
      clearTimeout(timer);
      clearTimeout(afterLoad);
      iframe.removeEventListener('load', onLoad);
      window.removeEventListener('message', onMessage);
    };
  }

  function failure(container, options) {
    var p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.className = 'kessai-error';
    p.textContent = TEXT[langOf(options)].failed;
    container.appendChild(p);
  }

  function inline(container, options) {
    var iframe = frame(options, 'inline');
    container.appendChild(iframe);
    var stop = listen(iframe, {
      token: function (token) {
        if (options.onToken) options.onToken(token);
        container.dispatchEvent(new CustomEvent('kessai:token', { detail: token, bubbles: true }));
      },
      failed: function () {
        iframe.hidden = true;
        failure(container, options);
      },
    });
    return {
      iframe: iframe,
      destroy: function () {
        stop();
        container.removeChild(iframe);
      },
    };
  }

  function open(options, opener) {
    var previousFocus = document.activeElement;
    var overlay = document.createElement('div');
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-modal', 'true');
    overlay.setAttribute('aria-label', options.title || TEXT[langOf(options)].title);
    overlay.style.cssText =
      'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.55);display:flex;align-items:flex-start;justify-content:center;overflow:auto;padding:2rem 0.5rem;';
    var panel = document.createElement('div');
    panel.style.cssText =
      'position:relative;width:100%;max-width:32rem;background:#f1f3f4;border-radius:0.75rem;';
    var close = document.createElement('button');
    close.type = 'button';
    close.textContent = '×';
    close.setAttribute('aria-label', TEXT[langOf(options)].close);
    close.style.cssText =
      'position:absolute;top:0.25rem;left:0.25rem;z-index:1;width:2.75rem;height:2.75rem;border:0;border-radius:50%;background:#fff;color:#1a1a1a;font-size:1.5rem;cursor:pointer;';
    var iframe = frame(options, 'overlay');
    panel.appendChild(close);
    panel.appendChild(iframe);
    overlay.appendChild(panel);
    // a modal: the rest of the page is out of reach (keyboard and screen readers) while it is open
    var made = [];
    for (var i = 0; i < document.body.children.length; i++) {
      var child = document.body.children[i];
      if (!child.hasAttribute('inert')) {
        child.setAttribute('inert', '');
        made.push(child);
      }
    }
    document.body.appendChild(overlay);
    var stop;
    var done = function () {
      for (var j = 0; j < made.length; j++) made[j].removeAttribute('inert');
      made = [];
      stop();
      document.removeEventListener('keydown', onKey);
      if (overlay.parentNode) overlay.parentNode.removeChild(overlay);
      if (previousFocus && previousFocus.focus) previousFocus.focus();
    };
    var onKey = function (event) {
      if (event.key === 'Escape') done();
    };
    document.addEventListener('keydown', onKey);
    close.addEventListener('click', done);
    stop = listen(iframe, {
      token: function (token) {
        if (options.onToken) options.onToken(token);
        (opener || document).dispatchEvent(new CustomEvent('kessai:token', { detail: token, bubbles: true }));
        done();
      },
      close: done,
      failed: function () {
        iframe.hidden = true;
        failure(panel, options);
      },
    });
    iframe.addEventListener('load', function () {
      iframe.focus();
    });
    return { close: done };
  }

  function optionsOf(element) {
    return {
      appId: element.getAttribute('data-app-id'),
      tokenType: element.getAttribute('data-token-type') || undefined,
      lang: element.getAttribute('data-lang') || undefined,
    };
  }

  function scan() {
    var buttons = document.querySelectorAll('[data-kessai-checkout]');
    for (var i = 0; i < buttons.length; i++) {
      if (buttons[i].getAttribute('data-kessai-bound')) continue;
      buttons[i].setAttribute('data-kessai-bound', '1');
      buttons[i].addEventListener('click', function (event) {
        event.preventDefault();
        open(optionsOf(event.currentTarget), event.currentTarget);
      });
    }
    var inlines = document.querySelectorAll('[data-kessai-inline]');
    for (var j = 0; j < inlines.length; j++) {
      if (inlines[j].getAttribute('data-kessai-bound')) continue;
      inlines[j].setAttribute('data-kessai-bound', '1');
      inline(inlines[j], optionsOf(inlines[j]));
    }
  }

  window.KessaiCheckout = { open: open, inline: inline, scan: scan };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
  else scan();
})();
