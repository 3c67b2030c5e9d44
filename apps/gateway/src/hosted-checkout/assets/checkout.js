// Kessai hosted checkout: the link page and the widget's / inline form's frame (docs/hosted-checkout.md).
// Plain browser JavaScript, no dependencies. Card data goes from these fields to POST /tokens and
// nowhere else: never into a URL, storage, a log or the embedding page.
(function () {
  'use strict';

  var config = JSON.parse(document.getElementById('checkout-config').textContent);
  var m = config.messages;
  var form = document.getElementById('pay-form');
  var button = document.getElementById('pay-button');
  var statusBox = document.getElementById('status');
  var resultBox = document.getElementById('result');
  var formError = document.getElementById('form-error');
  var cardFields = document.getElementById('card-fields');
  var onlineFields = document.getElementById('online-fields');
  var deferredFields = document.getElementById('deferred-fields');
  var konbiniFields = document.getElementById('konbini-fields');
  var instructionsBox = document.getElementById('instructions');
  var DEFERRED = ['bank_transfer', 'konbini'];
  var el = function (id) {
    return document.getElementById(id);
  };
  var POLL_MS = 700;
  var STORAGE_KEY = 'kessai:checkout:' + (config.linkId || 'frame');
  var resumedId = null;

  // ---- card rules -------------------------------------------------------------------------
  var BRANDS = [
    { name: 'american_express', test: /^3[47]/, lengths: [15], cvv: 4, groups: [4, 6, 5] },
    {
      name: 'diners_club',
      test: /^3(0[0-5]|[689])/,
      lengths: [14, 16],
      typical: 14,
      cvv: 3,
      groups: [4, 6, 4],
    },
    { name: 'jcb', test: /^35(2[89]|[3-8])/, lengths: [16], cvv: 3 },
    { name: 'visa', test: /^4/, lengths: [13, 16, 19], cvv: 3 },
    { name: 'mastercard', test: /^(5[1-5]|2(2[2-9]|[3-6]|7[01]|720))/, lengths: [16], cvv: 3 },
    { name: 'discover', test: /^(6011|64[4-9]|65)/, lengths: [16, 19], cvv: 3 },
    { name: 'unionpay', test: /^62/, lengths: [16, 17, 18, 19], cvv: 3 },
    { name: 'maestro', test: /^(5[06-8]|6)/, lengths: [12, 13, 14, 15, 16, 17, 18, 19], cvv: 3 },
  ];
  var digits = function (text) {
    return String(text || '').replace(/\D/g, '');
  };
  var brandOf = function (number) {
    for (var i = 0; i < BRANDS.length; i++) if (BRANDS[i].test.test(number)) return BRANDS[i];
    return null;
  };
  var luhn = function (number) {
    var sum = 0;
    for (var i = 0; i < number.length; i++) {
      var d = Number(number[number.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    return number.length > 0 && sum % 10 === 0;
  };
  var formatNumber = function (number) {
    var brand = brandOf(number);
    var groups = (brand && brand.groups) || [4, 4, 4, 4, 3];
    var out = [];
    var at = 0;
    for (var i = 0; i < groups.length && at < number.length; i++) {
      out.push(number.slice(at, at + groups[i]));
      at += groups[i];
    }
    if (at < number.length) out.push(number.slice(at));
    return out.join(' ');
  };
  var cvvLength = function () {
    var brand = brandOf(digits(el('card-number').value));
    return brand ? brand.cvv : 3;
  };

  // ---- per-field errors --------------------------------------------------------------------
  var setError = function (id, message) {
    var input = el(id);
    var box = el(id + '-error');
    if (!input || !box) return;
    box.textContent = message || '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  var checks = {
    cardholder: function (value, final) {
      if (!value.trim()) return final ? m.errors.required : '';
      return '';
    },
    'card-number': function (value, final) {
      var number = digits(value);
      if (!number) return final ? m.errors.required : '';
      var brand = brandOf(number);
      var complete = brand ? brand.lengths.indexOf(number.length) >= 0 : number.length >= 12;
      // while typing: nothing until the number is as long as its brand's usual length (16 for most)
      var usual = brand ? brand.typical || Math.min(16, Math.max.apply(null, brand.lengths)) : 16;
      if (!final && number.length < usual) return '';
      if (complete && luhn(number)) return '';
      return m.errors.cardNumber;
    },
    expiry: function (value, final) {
      var d = digits(value);
      if (!d) return final ? m.errors.required : '';
      if (!final && d.length < 4)
        return d.length >= 2 && (Number(d.slice(0, 2)) < 1 || Number(d.slice(0, 2)) > 12)
          ? m.errors.expiry
          : '';
      var parsed = parseExpiry(value);
      if (!parsed) return m.errors.expiry;
      var now = new Date();
      if (
        parsed.year < now.getFullYear() ||
        (parsed.year === now.getFullYear() && parsed.month < now.getMonth() + 1)
      )
        return m.errors.expired;
      return '';
    },
    cvv: function (value, final) {
      var d = digits(value);
      var n = cvvLength();
      if (!d) return final ? m.errors.required : '';
      if (!final && d.length < n) return '';
      return d.length === n ? '' : m.errors.cvv.replace('{n}', String(n));
    },
    'customer-name': function (value, final) {
      if (!value.trim()) return final ? m.errors.required : '';
      return '';
    },
    phone: function (value, final) {
      if (!value.trim()) return final ? m.errors.required : '';
      if (!final) return '';
      return /^[\d -]{4,20}$/.test(value.trim()) && digits(value).length >= 4 ? '' : m.errors.phone;
    },
    email: function (value, final) {
      if (!value.trim()) return final ? m.errors.required : '';
      if (!final) return '';
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()) ? '' : m.errors.email;
    },
  };
  function parseExpiry(value) {
    var parts = String(value).split('/');
    var month;
    var year;
    if (parts.length === 2) {
      month = Number(digits(parts[0]));
      year = digits(parts[1]);
    } else {
      var d = digits(value);
      month = Number(d.slice(0, 2));
      year = d.slice(2);
    }
    if (!(month >= 1 && month <= 12)) return null;
    if (year.length === 2) year = '20' + year;
    if (year.length !== 4) return null;
    return { month: month, year: Number(year) };
  }
  var method = function () {
    var chosen = form.querySelector('input[name="method"]:checked');
    if (chosen) return chosen.value;
    return (config.methods && config.methods[0]) || 'card';
  };
  var isDeferred = function (id) {
    return DEFERRED.indexOf(id) >= 0;
  };
  var activeFields = function () {
    var chosen = method();
    var ids =
      chosen === 'card'
        ? ['cardholder', 'card-number', 'expiry', 'cvv']
        : chosen === 'konbini'
          ? ['customer-name', 'phone']
          : [];
    // a bank transfer's or konbini's instructions are mailed: the email is needed then
    if (el('email') && (config.requireEmail !== false || isDeferred(chosen))) ids.push('email');
    return ids.filter(function (id) {
      return el(id);
    });
  };

  Object.keys(checks).forEach(function (id) {
    var input = el(id);
    if (!input) return;
    input.addEventListener('input', function () {
      if (id === 'card-number') {
        var number = digits(input.value).slice(0, 19);
        var formatted = formatNumber(number);
        if (formatted !== input.value) input.value = formatted;
        if (el('cvv') && el('cvv').value) setError('cvv', checks.cvv(el('cvv').value, false));
      }
      if (id === 'expiry') {
        var d = digits(input.value).slice(0, 4);
        var next = d.length > 2 ? d.slice(0, 2) + '/' + d.slice(2) : d;
        if (next !== input.value && !/\/$/.test(input.value)) input.value = next;
      }
      if (id === 'cvv') {
        var c = digits(input.value).slice(0, 4);
        if (c !== input.value) input.value = c;
      }
      setError(id, checks[id](input.value, false));
    });
    input.addEventListener('blur', function () {
      if (input.value) setError(id, checks[id](input.value, true));
    });
  });

  var applyMethod = function () {
    var chosen = method();
    cardFields.hidden = chosen !== 'card';
    onlineFields.hidden = chosen === 'card' || isDeferred(chosen);
    if (deferredFields) deferredFields.hidden = !isDeferred(chosen);
    if (konbiniFields) konbiniFields.hidden = chosen !== 'konbini';
  };
  var methodInputs = form.querySelectorAll('input[name="method"]');
  for (var i = 0; i < methodInputs.length; i++) {
    methodInputs[i].addEventListener('change', function () {
      applyMethod();
      formError.textContent = '';
    });
  }
  applyMethod();

  // ---- requests ----------------------------------------------------------------------------
  var newKey = function () {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map
      .call(bytes, function (b) {
        return ('0' + b.toString(16)).slice(-2);
      })
      .join('');
  };
  var embedder = function () {
    if (window.parent === window) return null;
    if (location.ancestorOrigins && location.ancestorOrigins.length > 0) return location.ancestorOrigins[0];
    try {
      return document.referrer ? new URL(document.referrer).origin : null;
    } catch {
      return null;
    }
  };
  var authorization = function () {
    return 'Bearer ' + (config.kind === 'link' ? config.credential : config.appId);
  };
  function api(method, path, body, key) {
    var headers = { Authorization: authorization(), Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (key) headers['Idempotency-Key'] = key;
    if (config.kind === 'frame' && embedder()) headers['X-Kessai-Embedder'] = embedder();
    return fetch(path, {
      method: method,
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    }).then(
      function (response) {
        return response.text().then(function (text) {
          var json = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = null;
          }
          return { ok: response.ok, status: response.status, body: json };
        });
      },
      function () {
        return { ok: false, status: 0, body: null };
      },
    );
  }

  // ---- states ------------------------------------------------------------------------------
  var busy = function (text) {
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    statusBox.textContent = text;
  };
  var idle = function () {
    button.disabled = false;
    form.removeAttribute('aria-busy');
    statusBox.textContent = '';
  };
  var showFormError = function (text) {
    idle();
    formError.textContent = text;
  };
  var showResult = function (text, href) {
    idle();
    form.hidden = true;
    resultBox.hidden = false;
    resultBox.textContent = '';
    var p = document.createElement('p');
    p.className = 'result-text';
    p.textContent = text;
    resultBox.appendChild(p);
    if (href) {
      var a = document.createElement('a');
      a.href = href;
      a.className = 'pay-button';
      a.textContent = m.backToShop;
      resultBox.appendChild(a);
    }
    resultBox.focus();
  };
  var withOutcome = function (url, payment, status) {
    if (!url) return null;
    try {
      var target = new URL(url);
      target.searchParams.set('checkout_link_id', config.linkId);
      target.searchParams.set(payment.kind === 'subscription' ? 'subscription_id' : 'charge_id', payment.id);
      target.searchParams.set('status', status);
      return target.toString();
    } catch {
      return null;
    }
  };
  var fieldOfApi = {
    'data.card_number': 'card-number',
    'data.cvv': 'cvv',
    'data.exp_month': 'expiry',
    'data.exp_year': 'expiry',
    'data.cardholder': 'cardholder',
    'data.customer_name': 'customer-name',
    'data.phone_number': 'phone',
    'data.phone_number.local_number': 'phone',
    'data.convenience_store': 'konbini-store',
    email: 'email',
  };
  var UNAVAILABLE = ['DISABLED_PAYMENT_TYPE', 'CONVENIENCE_PROCESSING_DISABLED', 'CURRENCY_NOT_SUPPORTED'];
  var apiFailure = function (result) {
    if (result.status === 0) return showFormError(m.errors.network);
    if (result.body && result.body.code === 'TRANSACTION_ALREADY_PROCESSED')
      return showFormError(m.errors.alreadyPaid);
    if (result.body && UNAVAILABLE.indexOf(result.body.code) >= 0) return showFormError(m.errors.unavailable);
    var errors = (result.body && result.body.errors) || [];
    var marked = false;
    errors.forEach(function (e) {
      var id = fieldOfApi[e.field];
      if (id && el(id)) {
        marked = true;
        setError(
          id,
          id === 'card-number'
            ? m.errors.cardNumber
            : id === 'expiry'
              ? m.errors.expiry
              : id === 'cvv'
                ? m.errors.cvv.replace('{n}', String(cvvLength()))
                : id === 'phone'
                  ? m.errors.phone
                  : id === 'email'
                    ? m.errors.email
                    : id === 'konbini-store'
                      ? m.errors.unavailable
                      : m.errors.required,
        );
      }
    });
    showFormError(marked ? m.errors.form : m.errors.failed);
  };

  function follow(payment) {
    var status = payment.status;
    if (payment.kind === 'charge') {
      // a bank transfer or konbini payment: the consumer pays outside, by these instructions
      if (status === 'awaiting' && payment.instructions) return showInstructions(payment.instructions);
      if (status === 'successful' || status === 'authorized') return succeed(payment);
      if (status === 'failed' || status === 'error' || status === 'canceled') return decline(payment);
      // back from the issuer's or operator's page: wait for its answer rather than go there again
      if (status === 'awaiting' && payment.next_action && payment.id !== resumedId)
        return redirectTo(payment);
    } else {
      if (status === 'current' || status === 'completed' || status === 'authorized') return succeed(payment);
      if (status === 'unconfirmed' || status === 'canceled') return decline(payment);
    }
    poll(payment, 0);
  }
  // a busy or unreachable gateway is asked again, a little later each time (up to about a minute)
  function poll(payment, failures) {
    setTimeout(
      function () {
        var path =
          '/checkout/links/' +
          config.linkId +
          '/payments/' +
          payment.kind +
          '/' +
          payment.id +
          '?lang=' +
          encodeURIComponent(config.lang);
        api('GET', path).then(function (r) {
          if (r.ok) return follow(r.body);
          var transient = r.status === 0 || r.status === 429 || r.status >= 500;
          if (transient && failures < 10) return poll(payment, failures + 1);
          apiFailure(r);
        });
      },
      POLL_MS * Math.pow(1.5, failures),
    );
  }
  function showInstructions(instructions) {
    sessionStorage.removeItem(STORAGE_KEY);
    idle();
    form.hidden = true;
    resultBox.hidden = true;
    el('instructions-title').textContent = instructions.title;
    el('instructions-intro').textContent = instructions.intro;
    var list = el('instructions-lines');
    list.textContent = '';
    instructions.lines.forEach(function (line) {
      var row = document.createElement('div');
      row.className = 'instruction';
      row.setAttribute('data-key', line.key);
      var dt = document.createElement('dt');
      dt.textContent = line.label;
      var dd = document.createElement('dd');
      dd.textContent = line.value;
      row.appendChild(dt);
      row.appendChild(dd);
      list.appendChild(row);
    });
    el('instructions-mailed').textContent = config.mailsInstructions ? m.instructionsMailed : '';
    instructionsBox.hidden = false;
    instructionsBox.focus();
  }
  function succeed(payment) {
    sessionStorage.removeItem(STORAGE_KEY);
    var target = withOutcome(config.successUrl, payment, 'successful');
    if (target) {
      statusBox.textContent = payment.kind === 'subscription' ? m.subscribed : m.success;
      location.assign(target);
      return;
    }
    showResult(payment.kind === 'subscription' ? m.subscribed : m.success, null);
  }
  function decline(payment) {
    sessionStorage.removeItem(STORAGE_KEY);
    var reason = payment.error && payment.error.message ? payment.error.message : String(payment.status);
    showFormError(m.errors.declined.replace('{reason}', reason));
    var failure = withOutcome(config.failureUrl, payment, 'failed');
    if (failure) {
      var a = document.createElement('a');
      a.href = failure;
      a.textContent = m.backToShop;
      formError.appendChild(document.createTextNode(' '));
      formError.appendChild(a);
    }
    if (el('cvv')) el('cvv').value = '';
    var first = el('card-number');
    if (first && method() === 'card') first.focus();
  }
  // a token-only link: the merchant's server charges the token; its return URL names it
  function tokenOnlyDone(token) {
    var target = null;
    if (config.successUrl) {
      try {
        var url = new URL(config.successUrl);
        url.searchParams.set('checkout_link_id', config.linkId);
        url.searchParams.set('transaction_token_id', token.id);
        url.searchParams.set('status', 'successful');
        target = url.toString();
      } catch {
        target = null;
      }
    }
    if (target) {
      statusBox.textContent = m.tokenSaved;
      location.assign(target);
      return;
    }
    showResult(m.tokenSaved, null);
  }
  function redirectTo(payment) {
    var next = payment.next_action;
    if (next.method !== 'http_get' && next.method !== 'http_get_mobile')
      return showFormError(m.errors.failed);
    // to come back to this payment when the issuer or operator sends the consumer back here
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ kind: payment.kind, id: payment.id }));
    busy(m.redirecting);
    location.assign(next.url);
  }

  function cardBody() {
    var expiry = parseExpiry(el('expiry').value) || { month: 0, year: 0 };
    var data = {
      cardholder: el('cardholder').value.trim(),
      card_number: digits(el('card-number').value),
      exp_month: expiry.month,
      exp_year: expiry.year,
    };
    if (el('cvv')) data.cvv = digits(el('cvv').value);
    var body = { payment_type: 'card', type: config.tokenType, data: data };
    // an email the form does not require may be left empty (the field is there for bank transfers)
    if (el('email') && el('email').value.trim()) body.email = el('email').value.trim();
    return body;
  }
  function deferredBody(chosen) {
    var body = { payment_type: chosen, type: config.tokenType, email: el('email').value.trim() };
    body.data =
      chosen === 'bank_transfer'
        ? { brand: config.bankBrand }
        : {
            customer_name: el('customer-name').value.trim(),
            convenience_store: el('konbini-store').value,
            phone_number: { country_code: '81', local_number: el('phone').value.trim() },
          };
    return body;
  }
  function onlineBody(brand) {
    var body = {
      payment_type: 'online',
      type: config.tokenType,
      data: { brand: brand, call_method: 'http_get' },
    };
    if (el('email') && el('email').value.trim()) body.email = el('email').value.trim();
    return body;
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    formError.textContent = '';
    var firstInvalid = null;
    activeFields().forEach(function (id) {
      var message = checks[id](el(id).value, true);
      setError(id, message);
      if (message && !firstInvalid) firstInvalid = el(id);
    });
    if (firstInvalid) {
      formError.textContent = m.errors.form;
      firstInvalid.focus();
      return;
    }
    var chosen = method();
    busy(m.processing);
    var tokenBody =
      chosen === 'card' ? cardBody() : isDeferred(chosen) ? deferredBody(chosen) : onlineBody(chosen);
    api('POST', '/tokens', tokenBody, newKey()).then(function (token) {
      if (!token.ok) return apiFailure(token);
      if (config.kind === 'frame') return tokenized(token.body);
      if (config.tokenOnly) return tokenOnlyDone(token.body);
      api(
        'POST',
        '/checkout/links/' + config.linkId + '/payments',
        { transaction_token_id: token.body.id, lang: config.lang },
        newKey(),
      ).then(function (payment) {
        if (!payment.ok) return apiFailure(payment);
        follow(payment.body);
      });
    });
  });

  // ---- the frame: hands the token to the embedding page ------------------------------------
  function tokenized(token) {
    var parent = embedder();
    showResult(m.tokenSaved, null);
    if (parent)
      window.parent.postMessage(
        {
          type: 'kessai:token',
          token: {
            id: token.id,
            type: token.type,
            payment_type: token.payment_type,
            card:
              token.data && token.data.card
                ? { brand: token.data.card.brand, last_four: token.data.card.last_four }
                : null,
          },
        },
        parent,
      );
  }
  if (config.kind === 'frame') {
    var parentOrigin = embedder();
    if (!parentOrigin) {
      // the frame only works inside the page that embeds it (whose origin the gateway checks)
      form.hidden = true;
      showResult(m.frameRefused || m.errors.failed, null);
    } else {
      var report = function () {
        window.parent.postMessage(
          { type: 'kessai:resize', height: document.documentElement.scrollHeight },
          parentOrigin,
        );
      };
      window.parent.postMessage({ type: 'kessai:ready' }, parentOrigin);
      report();
      if (window.ResizeObserver) new ResizeObserver(report).observe(document.body);
      document.addEventListener('keydown', function (event) {
        if (event.key === 'Escape') window.parent.postMessage({ type: 'kessai:close' }, parentOrigin);
      });
    }
  }

  // ---- back on the page of a bank transfer or konbini payment made before: its instructions ----
  if (config.kind === 'link' && config.payment && config.payment.id) {
    form.hidden = true;
    busy(m.preparing);
    follow({ kind: config.payment.kind, id: config.payment.id, status: 'pending' });
  } else if (config.kind === 'link' && config.resume) {
    // back from the issuer's or operator's page: the same payment, polled on
    var saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || 'null');
    } catch {
      saved = null;
    }
    if (saved && saved.id) {
      resumedId = saved.id;
      busy(m.processing);
      follow({ kind: saved.kind, id: saved.id, status: 'pending' });
    }
  }
})();
