/*! Concerto chat widget: one tag puts an assistant on any page.
 *
 *   <script src="https://HOST/static/concerto/widget.js" data-assistant="KEY" async></script>
 *
 * The launcher shows once the server has said this page may use the assistant (nothing shows on a page
 * the assistant is not published on).
 *
 * Options (data- attributes of the tag): data-title (by default the assistant's name), data-position ("right" | "left"),
 * data-greeting (an opening message shown above the conversation), data-lang ("en", "fr",
 * "de", "es": the built-in labels), data-open ("true": open at load), data-api (the server,
 * by default the one the script comes from). Colours and fonts: CSS custom properties on
 * #concerto-chat in the page (--concerto-accent, --concerto-accent-text, --concerto-bg,
 * --concerto-text, --concerto-user-bg, --concerto-font, --concerto-radius, --concerto-z).
 *
 * No framework, no CDN; everything lives in a shadow root so the page's styles and ours never
 * meet. The session id is kept in localStorage (a reload fetches the transcript back); every
 * message carries a client id, so a resend after a network blip never runs a turn twice.
 */
(function () {
  "use strict";
  var script = document.currentScript || document.querySelector('script[data-assistant][src*="widget.js"]');
  if (!script || !script.getAttribute("data-assistant") || document.getElementById("concerto-chat")) return;

  var LABELS = {
    en: {open: "Chat with us", close: "Close the chat", title: "Assistant", message: "Your message", send: "Send",
      allow: "Allow", deny: "Don't allow", what: "What did you do?", how: "How?", why: "Why?",
      share: "Shares", with: "with", typing: "The assistant is answering…", retry: "Retry",
      notSent: "Not sent.", unavailable: "The chat is not available on this page right now.",
      busy: "Too many messages; please wait a minute.",
      overloaded: "The assistant is busy right now; please try again in a few seconds.",
      restart: "New conversation", you: "You", bot: "Assistant",
      hint: "Expected", from: "from you", by: "found by", yes: "Yes", no: "No"},
    fr: {open: "Discuter avec nous", close: "Fermer la discussion", title: "Assistant", message: "Votre message",
      send: "Envoyer", allow: "Autoriser", deny: "Ne pas autoriser", what: "Qu'avez-vous fait ?", how: "Comment ?",
      why: "Pourquoi ?", share: "Partage", with: "avec", typing: "L'assistant répond…", retry: "Réessayer",
      notSent: "Non envoyé.", unavailable: "La discussion n'est pas disponible sur cette page pour l'instant.",
      busy: "Trop de messages ; patientez une minute.",
      overloaded: "L'assistant est occupé ; réessayez dans quelques secondes.",
      restart: "Nouvelle conversation", you: "Vous",
      bot: "Assistant", hint: "Attendu", from: "donné par vous", by: "trouvé par", yes: "Oui", no: "Non"},
    de: {open: "Mit uns chatten", close: "Chat schließen", title: "Assistent", message: "Ihre Nachricht",
      send: "Senden", allow: "Erlauben", deny: "Nicht erlauben", what: "Was haben Sie getan?", how: "Wie?",
      why: "Warum?", share: "Teilt", with: "mit", typing: "Der Assistent antwortet…", retry: "Erneut senden",
      notSent: "Nicht gesendet.", unavailable: "Der Chat ist auf dieser Seite gerade nicht verfügbar.",
      busy: "Zu viele Nachrichten; bitte eine Minute warten.",
      overloaded: "Der Assistent ist gerade ausgelastet; bitte in ein paar Sekunden erneut versuchen.",
      restart: "Neues Gespräch", you: "Sie",
      bot: "Assistent", hint: "Erwartet", from: "von Ihnen", by: "ermittelt von", yes: "Ja", no: "Nein"},
    es: {open: "Chatea con nosotros", close: "Cerrar el chat", title: "Asistente", message: "Tu mensaje",
      send: "Enviar", allow: "Permitir", deny: "No permitir", what: "¿Qué hiciste?", how: "¿Cómo?",
      why: "¿Por qué?", share: "Comparte", with: "con", typing: "El asistente responde…", retry: "Reintentar",
      notSent: "No enviado.", unavailable: "El chat no está disponible en esta página ahora.",
      busy: "Demasiados mensajes; espera un minuto.",
      overloaded: "El asistente está ocupado; inténtalo de nuevo en unos segundos.",
      restart: "Nueva conversación", you: "Tú",
      bot: "Asistente", hint: "Se espera", from: "dado por ti", by: "obtenido por", yes: "Sí", no: "No"}
  };

  function attr(name, fallback) {
    var value = script.getAttribute("data-" + name);
    return value === null || value === "" ? fallback : value;
  }

  var lang = (attr("lang", document.documentElement.lang || "en") || "en").slice(0, 2).toLowerCase();
  var t = LABELS[lang] || LABELS.en;
  var config = {
    key: attr("assistant"),
    api: (attr("api", new URL(script.src, location.href).origin)).replace(/\/$/, "") + "/api/v1",
    title: attr("title", t.title),
    position: attr("position", "right") === "left" ? "left" : "right",
    greeting: attr("greeting", ""),
    open: attr("open", "false") === "true"
  };
  var store = "concerto:" + config.key + ":";
  var RETRIES = [1000, 2000, 4000]; // a network blip: resend (same client id) after these waits
  // 409: the previous message of the session is still being answered (a slow skill, or a server
  // killed mid-turn whose lease must lapse): resend, as the server says when, this many times.
  var BUSY_RETRIES = 40;

  var CSS = [
    ":host{all:initial}",
    "*{box-sizing:border-box}",
    ".root{--a:var(--concerto-accent,#2f5bd3);--at:var(--concerto-accent-text,#fff);--bg:var(--concerto-bg,#fff);",
    "--tx:var(--concerto-text,#1d2230);--ub:var(--concerto-user-bg,#e8eefc);--r:var(--concerto-radius,12px);",
    "font:15px/1.4 var(--concerto-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);color:var(--tx);",
    "position:fixed;bottom:16px;z-index:var(--concerto-z,2147483000)}",
    ".right{right:16px}.left{left:16px}",
    "button{font:inherit;cursor:pointer;border-radius:8px;border:1px solid var(--a);background:var(--bg);",
    "color:var(--a);padding:6px 10px;min-height:36px}",
    "button:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid var(--a);outline-offset:2px}",
    "button.primary,.launcher{background:var(--a);color:var(--at)}",
    "button[disabled]{opacity:.5;cursor:default}",
    ".launcher{border-radius:999px;padding:12px 18px;box-shadow:0 4px 14px rgba(0,0,0,.25)}",
    ".panel{display:flex;flex-direction:column;width:min(380px,calc(100vw - 32px));height:min(600px,calc(100vh - 32px));",
    "background:var(--bg);border-radius:var(--r);box-shadow:0 8px 30px rgba(0,0,0,.3);overflow:hidden}",
    ".panel[hidden]{display:none}",
    "header{display:flex;align-items:center;gap:8px;padding:10px 12px;background:var(--a);color:var(--at)}",
    "header h2{flex:1;margin:0;font-size:16px}",
    "header button{background:transparent;color:var(--at);border-color:var(--at)}",
    ".log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px}",
    ".msg{max-width:88%;padding:8px 12px;border-radius:var(--r);background:#f1f2f5;white-space:pre-wrap;",
    "overflow-wrap:anywhere}",
    ".msg.user{align-self:flex-end;background:var(--ub)}",
    ".msg.failed{border:1px dashed #b00020}",
    ".msg .hint{display:block;font-size:13px;opacity:.8;margin-top:4px}",
    ".choices,.explain .row{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin-top:8px}",
    ".note{font-size:13px;opacity:.8;align-self:center;text-align:center}",
    ".explanation{background:#fff8e6}",
    ".explanation ul{margin:6px 0 0;padding-left:18px}",
    "details{margin:2px 0}summary{cursor:pointer}",
    "form{display:flex;gap:8px;padding:10px;border-top:1px solid #dde}",
    "textarea{flex:1;font:inherit;color:var(--tx);background:var(--bg);resize:none;border:1px solid #99a;",
    "border-radius:8px;padding:8px;min-height:40px;max-height:120px}",
    ".tools{display:flex;gap:6px;padding:6px 10px 0}",
    ".vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}",
    "@media (max-width:480px){.root{bottom:8px}.right{right:8px}.left{left:8px}",
    ".panel{width:calc(100vw - 16px);height:calc(100vh - 16px)}}"
  ].join("");

  // --- the DOM, in a shadow root -------------------------------------------------------------------
  var host = document.createElement("div");
  host.id = "concerto-chat";
  var shadow = host.attachShadow({mode: "open"});
  var style = document.createElement("style");
  style.textContent = CSS;
  shadow.appendChild(style);

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (name) {
      if (name === "text") node.textContent = props[name];
      else if (name === "on") node.addEventListener("click", props[name]);
      else node.setAttribute(name, props[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  var root = el("div", {"class": "root " + config.position});
  var launcher = el("button", {"class": "launcher", type: "button", "aria-expanded": "false",
    "aria-controls": "concerto-panel", text: t.open});
  var titleId = "concerto-title";
  var closeButton = el("button", {type: "button", "aria-label": t.close, text: "✕"});
  var restartButton = el("button", {type: "button", text: t.restart});
  var log = el("div", {"class": "log", role: "log", "aria-live": "polite", "aria-relevant": "additions",
    "aria-labelledby": titleId, tabindex: "0"});
  var whatButton = el("button", {type: "button", text: t.what});
  var input = el("textarea", {id: "concerto-input", rows: "1", autocomplete: "off"});
  var sendButton = el("button", {type: "submit", "class": "primary", text: t.send});
  var form = el("form", {}, [el("label", {"for": "concerto-input", "class": "vh", text: t.message}), input, sendButton]);
  var status = el("div", {"class": "vh", role: "status", "aria-live": "polite"});
  var panel = el("section", {id: "concerto-panel", "class": "panel", role: "dialog", "aria-labelledby": titleId,
    hidden: ""}, [
    el("header", {}, [el("h2", {id: titleId, text: config.title}), restartButton, closeButton]),
    log, el("div", {"class": "tools"}, [whatButton]), form, status
  ]);
  root.appendChild(launcher);
  root.appendChild(panel);
  shadow.appendChild(root);

  // --- state -------------------------------------------------------------------------------------------
  var sessionId = null;
  var starting = null;

  function saved(name) { try { return localStorage.getItem(store + name); } catch (e) { return null; } }
  function save(name, value) {
    try { if (value === null) localStorage.removeItem(store + name); else localStorage.setItem(store + name, value); }
    catch (e) { /* storage refused (private mode): the session lasts as long as the page */ }
  }
  function newId() {
    return (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
      : Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function request(method, path, body) {
    var options = {method: method, headers: {}};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(config.api + path, options).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var error = new Error(data.detail || response.statusText);
          error.status = response.status;
          error.retryAfter = Number(response.headers.get("Retry-After")) || 0;
          throw error;
        }
        return data;
      });
    });
  }

  // --- rendering -------------------------------------------------------------------------------------

  function scrollDown() { log.scrollTop = log.scrollHeight; }

  function note(text) {
    var node = el("p", {"class": "note", text: text});
    log.appendChild(node);
    scrollDown();
    return node;
  }

  function closeChoices() {
    Array.prototype.forEach.call(log.querySelectorAll(".choices button"), function (b) { b.disabled = true; });
  }

  function userBubble(text) {
    var node = el("div", {"class": "msg user"}, [el("span", {"class": "vh", text: t.you + ": "}),
      document.createTextNode(text)]);
    log.appendChild(node);
    scrollDown();
    return node;
  }

  function choice(label, answer, extra) {
    // The answered prompt's buttons are disabled at once: keyboard users go on in the message box.
    var attrs = {type: "button", text: label, on: function () { send(answer); input.focus(); }};
    Object.keys(extra || {}).forEach(function (k) { attrs[k] = extra[k]; });
    return el("button", attrs);
  }

  function explainButton(label, kind, element, name) {
    return el("button", {type: "button", text: label, "aria-label": label + " " + name,
      on: function () { explain(kind, element); }});
  }

  function reply(r) {
    var id = "concerto-m" + log.childElementCount;
    var node = el("div", {"class": "msg bot " + (r.kind || "text"), id: id},
      [el("span", {"class": "vh", text: t.bot + ": "}), document.createTextNode(r.text || "")]);
    if (r.kind === "question") {
      if (r.hint) node.appendChild(el("span", {"class": "hint", text: t.hint + ": " + r.hint}));
      var options = r.options || r.values || r.choices || [];
      if (options.length) {
        node.appendChild(el("div", {"class": "choices", role: "group", "aria-labelledby": id},
          options.map(function (o) { return choice(String(o), String(o)); })));
      }
      if (r.element && !options.length && r.goal === undefined) {
        node.appendChild(el("div", {"class": "explain"}, [el("div", {"class": "row"}, [
          explainButton(t.why, "why", r.element, r.label || r.element)])]));
      }
    } else if (r.kind === "consent") {
      var names = r.element_labels || r.elements || [];
      node.appendChild(el("span", {"class": "hint", text: t.share + ": " + names.join(", ") + " " + t.with + " " +
        (r.skill_label || r.skill || "")}));
      node.appendChild(el("div", {"class": "choices", role: "group", "aria-labelledby": id}, [
        choice(t.allow, "yes", {"class": "primary"}), choice(t.deny, "no")]));
    } else if (r.kind === "result" && r.data && r.data.values) {
      // How / Why of each value found: these stay usable for the rest of the conversation.
      node.appendChild(el("div", {"class": "explain"}, Object.keys(r.data.values).map(function (element) {
        var name = element.replace(/_/g, " ");
        return el("div", {"class": "row"}, [el("span", {text: name + ":"}), explainButton(t.how, "how", element, name),
          explainButton(t.why, "why", element, name)]);
      })));
    }
    if (r.kind === "question" && r.goal && !(r.options || []).length) {
      node.appendChild(el("div", {"class": "choices", role: "group", "aria-labelledby": id}, [
        choice(t.yes, "yes"), choice(t.no, "no")]));
    }
    log.appendChild(node);
    scrollDown();
  }

  function howTree(item) {
    var label = (item.label || item.element) + (item.source === "user" ? " (" + t.from + ")"
      : item.skill ? " (" + t.by + " " + (item.skill_label || item.skill) + ")" : "");
    var inputs = item.inputs || [];
    if (!inputs.length) return el("li", {text: label});
    var details = el("details", {}, [el("summary", {text: label}),
      el("ul", {}, inputs.map(howTree))]);
    return el("li", {}, [details]);
  }

  function explanation(body) {
    var node = el("div", {"class": "msg bot explanation"}, [el("span", {"class": "vh", text: t.bot + ": "}),
      document.createTextNode(body.text || "")]);
    var items = body.kind === "how" && body.item ? [body.item] : (body.items || []);
    if (items.length) node.appendChild(el("ul", {"class": "how-tree"}, items.map(howTree)));
    if (body.kind === "why" && body.chain && body.chain.length) {
      node.appendChild(el("ul", {}, body.chain.map(function (s) {
        return el("li", {text: s.skill + "(" + (s.inputs || []).join(", ") + ") → " + (s.outputs || []).join(", ")});
      })));
    }
    log.appendChild(node);
    scrollDown();
  }

  function transcript(lines) {
    var lastUser = -1;
    lines.forEach(function (line, i) { if (line.role === "user") lastUser = i; });
    lines.forEach(function (line, i) {
      if (line.role === "user") userBubble(line.text);
      else reply(line);
      if (i === lastUser) closeChoices();
    });
  }

  // --- talking to the server ------------------------------------------------------------------------

  function start() {
    if (sessionId) return Promise.resolve(sessionId);
    if (starting) return starting;
    starting = request("POST", "/assistants/" + encodeURIComponent(config.key) + "/sessions").then(function (data) {
      sessionId = data.id;
      save("session", sessionId);
      data.replies.forEach(reply);
      return sessionId;
    }).catch(function (error) {
      note(error.status === 429 ? t.busy : error.status === 503 ? t.overloaded : t.unavailable);
      throw error;
    }).finally(function () { starting = null; });
    return starting;
  }

  function resume(id) {
    return request("GET", "/sessions/" + encodeURIComponent(id)).then(function (data) {
      sessionId = id;
      transcript(data.transcript || []);
      var pending = JSON.parse(saved("outbox") || "null");
      if (pending) { // sent just before a reload: resend it unless its turn is in the transcript already
        var asked = (data.transcript || []).some(function (l) { return l.client_id === pending.id; });
        if (asked) save("outbox", null);
        else deliver(pending, userBubble(pending.text));
      }
    }).catch(function (error) {
      if (error.status === 404 || error.status === 403) { save("session", null); return start(); }
      note(t.unavailable);
    });
  }

  function send(text) {
    text = (text || "").trim();
    if (!text) return;
    closeChoices();
    var message = {id: newId(), text: text};
    var bubble = userBubble(text);
    start().then(function () { deliver(message, bubble); }).catch(function () { failed(message, bubble); });
  }

  function deliver(message, bubble, attempt) {
    attempt = attempt || 0;
    save("outbox", JSON.stringify(message));
    status.textContent = t.typing;
    request("POST", "/sessions/" + sessionId + "/messages", {text: message.text, client_id: message.id})
      .then(function (data) {
        save("outbox", null);
        status.textContent = "";
        data.replies.forEach(reply);
      })
      .catch(function (error) {
        if (!error.status && attempt < RETRIES.length) { // no answer at all: the same message again, later
          setTimeout(function () { deliver(message, bubble, attempt + 1); }, RETRIES[attempt]);
          return;
        }
        if (error.status === 409 && attempt < BUSY_RETRIES) { // the previous message is still being answered
          setTimeout(function () { deliver(message, bubble, attempt + 1); }, 1000 * (error.retryAfter || 1));
          return;
        }
        status.textContent = "";
        save("outbox", null);
        if (error.status === 429) note(t.busy);
        else if (error.status === 503) { note(t.overloaded); failed(message, bubble); } // busy: Retry sends it again
        else if (error.status && error.status < 500) note(error.message);
        else failed(message, bubble);
      });
  }

  function failed(message, bubble) {
    if (!bubble) return;
    bubble.classList.add("failed");
    var retry = el("button", {type: "button", text: t.retry, on: function () {
      bubble.classList.remove("failed");
      retry.parentNode.removeChild(retry);
      start().then(function () { deliver(message, bubble); }).catch(function () { failed(message, bubble); });
    }});
    bubble.appendChild(el("span", {"class": "hint", text: t.notSent + " "}));
    bubble.appendChild(retry);
  }

  function explain(kind, element) {
    if (!sessionId) return;
    var query = "?kind=" + kind + (element ? "&element=" + encodeURIComponent(element) : "");
    request("GET", "/sessions/" + sessionId + "/explain" + query).then(explanation).catch(function (error) {
      note(error.message || t.unavailable);
    });
  }

  // --- events ------------------------------------------------------------------------------------------

  function open() {
    panel.hidden = false;
    launcher.hidden = true;
    launcher.setAttribute("aria-expanded", "true");
    save("open", "1");
    input.focus();
    if (!sessionId && !starting) {
      var id = saved("session");
      if (id) resume(id); else start().catch(function () {});
    }
  }

  function close() {
    panel.hidden = true;
    launcher.hidden = false;
    launcher.setAttribute("aria-expanded", "false");
    save("open", null);
    launcher.focus();
  }

  launcher.addEventListener("click", open);
  closeButton.addEventListener("click", close);
  whatButton.addEventListener("click", function () { explain("what"); });
  restartButton.addEventListener("click", function () {
    // The old conversation ends: the server drops the values the user gave in it now.
    if (sessionId) request("POST", "/sessions/" + sessionId + "/end").catch(function () {});
    save("session", null);
    sessionId = null;
    log.textContent = "";
    if (config.greeting) note(config.greeting);
    start().catch(function () {});
    input.focus();
  });
  panel.addEventListener("keydown", function (event) { if (event.key === "Escape") close(); });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = input.value;
    input.value = "";
    send(text);
  });

  // The launcher shows only once the server says this page may use the assistant: on a page it is not
  // published on (403, and no CORS headers, so the fetch fails), or for an unknown or disabled key,
  // nothing is shown at all. The answer also names the assistant, the title when the tag gives none.
  function mount() {
    launcher.hidden = true;
    document.body.appendChild(host);
    request("GET", "/assistants/" + encodeURIComponent(config.key) + "/widget").then(function (data) {
      if (!script.getAttribute("data-title") && data.title) {
        config.title = data.title;
        shadow.getElementById(titleId).textContent = data.title;
      }
      launcher.hidden = false;
      if (config.greeting) note(config.greeting);
      if (config.open || saved("open")) open();
    }).catch(function () {
      host.remove();  // (`hidden` would lose to the shadow root's `:host{all:initial}`)
    });
  }
  window.ConcertoChat = {open: open, close: close, send: send};
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);
})();
