// Stockroom console: the copy button next to a new key's secret, and the CSV file picker. Both work without
// script (the field is selectable; a CSV can be pasted); nothing else on the console needs it.
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy-target]") : null;
  if (!button) return;
  const field = document.getElementById(button.getAttribute("data-copy-target"));
  const status = document.getElementById(button.getAttribute("data-copy-status"));
  if (!field) return;
  const done = (text) => {
    if (status) status.textContent = text;
  };
  const fallback = () => {
    field.focus();
    field.select();
    try {
      done(document.execCommand("copy") ? "Copied to the clipboard." : "Press Ctrl+C to copy.");
    } catch {
      done("Press Ctrl+C to copy.");
    }
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(() => done("Copied to the clipboard."), fallback);
  } else {
    fallback();
  }
});

// A chosen CSV file fills the text box the import form sends (the form works without it: paste instead).
document.addEventListener("change", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || !input.dataset.fills || !input.files?.[0]) return;
  const target = document.getElementById(input.dataset.fills);
  if (target) input.files[0].text().then((text) => (target.value = text));
});

// The receive screen: a scan (a scanner types the code, then Enter) adds one unit to the line with that
// SKU or barcode in the page, up to what is outstanding and then as surplus; an unknown code changes
// nothing and says so. Without script the same Enter posts the form and the server does it.
document.addEventListener("keydown", (event) => {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.dataset.scan !== "receive" || event.key !== "Enter")
    return;
  event.preventDefault();
  const code = input.value.trim();
  input.value = "";
  const status = document.getElementById("scan-status");
  const say = (text, ok) => {
    if (!status) return;
    status.textContent = text;
    status.className = ok ? "scan-ok" : "scan-unknown";
  };
  if (code === "") return;
  const wanted = code.toLowerCase();
  const rows = [...document.querySelectorAll("tr[data-codes]")].filter((row) =>
    JSON.parse(row.dataset.codes || "[]").includes(wanted),
  );
  if (rows.length === 0) {
    say(`No line of ${input.dataset.order} has the SKU or barcode “${code}”. Nothing was added.`, false);
    return;
  }
  const count = (field) => (/^\d+$/.test(field.value.trim()) ? Number(field.value.trim()) : 0);
  const fieldOf = (row, name) => row.querySelector(`input[name^="${name}_"]`);
  const row = rows.find((r) => count(fieldOf(r, "received")) < Number(r.dataset.outstanding)) ?? rows[0];
  const received = fieldOf(row, "received");
  const label = row.querySelector(".item-name")?.textContent ?? "the item";
  let changed = received;
  if (count(received) < Number(row.dataset.outstanding)) {
    received.value = String(count(received) + 1);
    say(`Scanned ${label}: ${received.value} received.`, true);
  } else {
    changed = fieldOf(row, "surplus");
    changed.value = String(count(changed) + 1);
    say(`Scanned ${label}: ${changed.value} surplus.`, true);
  }
  changed.dispatchEvent(new Event("input", { bubbles: true }));
});

// A receive form changed after its preview books only after a new preview (the server checks it too).
document.addEventListener("input", (event) => {
  const target = event.target;
  if (!(target instanceof HTMLElement) || target.dataset.scan) return;
  const preview = target.closest("form.receive")?.querySelector("#preview");
  if (!preview || preview.dataset.stale) return;
  preview.dataset.stale = "yes";
  const book = preview.querySelector('button[value="book"]');
  if (!book) return;
  book.hidden = true;
  const note = document.createElement("p");
  note.className = "flash flash-error";
  note.textContent =
    "The delivery changed since this preview: preview the landed costs again before booking.";
  book.parentNode.prepend(note);
});

// The draft order editor: as the user types, each line's warnings (below the supplier's minimum, not a
// whole number of packs), its line total, and the order's totals, with the API's rounding (half-up to
// the currency, tax per line at the line's own choice (the order's tax, none, or a rate) and per charge). A preview: saving has the API compute the order. Without
// script the server shows the same warnings after any round trip, and the saved totals.
(() => {
  const PLACES = 8;
  const TEN = 10n;
  // A decimal string as an integer count of 10^-8, or null when it is not a plain decimal.
  const parse = (text) => {
    const match = /^(\d{1,12})(?:\.(\d{1,8}))?$/.exec(String(text).trim());
    if (!match) return null;
    return BigInt(match[1]) * TEN ** BigInt(PLACES) + BigInt((match[2] ?? "").padEnd(PLACES, "0"));
  };
  // a / b rounded half-up (both non-negative).
  const divRound = (a, b) => (a * 2n + b) / (2n * b);
  const toMinor = (scaled, minor) => divRound(scaled, TEN ** BigInt(PLACES - minor));
  const show = (minorAmount, minor, currency) => {
    const sign = minorAmount < 0n ? "-" : "";
    const digits = (minorAmount < 0n ? -minorAmount : minorAmount).toString().padStart(minor + 1, "0");
    const text = minor === 0 ? digits : `${digits.slice(0, -minor)}.${digits.slice(-minor)}`;
    try {
      const shown = new Intl.NumberFormat("en-US", {
        style: "currency",
        currency,
        currencyDisplay: "narrowSymbol",
        maximumFractionDigits: 8,
      }).format(`${sign}${text}`);
      return shown.includes(currency) ? shown : `${shown} ${currency}`;
    } catch {
      return `${sign}${text} ${currency}`;
    }
  };
  const tierFor = (tiers, quantity) => {
    let best = null;
    for (const tier of tiers)
      if (tier.min_qty <= quantity && (!best || tier.min_qty > best.min_qty)) best = tier;
    return best;
  };
  const warningsFor = (row, quantity) => {
    const min = Math.max(1, Number(row.dataset.moq) || 1);
    const pack = Math.max(1, Number(row.dataset.pack) || 1);
    const out = [];
    if (quantity < min) out.push(`Below the supplier's minimum order of ${min}.`);
    if (pack > 1 && quantity % pack !== 0)
      out.push(`Not a whole number of packs of ${pack} (${row.dataset.packUnit}).`);
    if (out.length > 0) out.push(`Suggested: ${Math.ceil(Math.max(quantity, min) / pack) * pack}.`);
    return out.join(" ");
  };
  const update = (form) => {
    const totals = form.querySelector(".totals");
    if (!totals) return;
    const currency = totals.dataset.currency;
    const minor = Number(totals.dataset.minor);
    // The tax picker and its two checkboxes when the form has them, else what the server drew.
    const picked = form.querySelector("#po-tax")?.selectedOptions?.[0];
    const rateText = picked ? picked.dataset.rate : totals.dataset.taxRate;
    const rate = rateText === undefined ? null : parse(rateText);
    const box = (id, drawn) => {
      const field = form.querySelector(`#${id}`);
      return field ? field.checked : drawn === "true";
    };
    const included = box("po-taxes-included", totals.dataset.taxesIncluded);
    const chargesTaxable = box("po-charges-taxable", totals.dataset.chargesTaxable);
    const hundred = 100n * TEN ** BigInt(PLACES);
    const taxAt = (amount, r) =>
      r === null || r === 0n ? 0n : divRound(amount * r, included ? hundred + r : hundred);
    // A line's rate: its own choice when the line has a tax picker, else the order's.
    const lineRate = (row) => {
      const chosen = row.querySelector("select.line-tax")?.selectedOptions?.[0];
      if (!chosen || chosen.dataset.rate === "order") return rate;
      return parse(chosen.dataset.rate);
    };
    let subtotal = 0n;
    let charges = 0n;
    let tax = 0n;
    let complete = true;
    for (const row of form.querySelectorAll("tr[data-line]")) {
      const qtyField = row.querySelector("input.qty");
      const costField = row.querySelector("input.cost");
      const removed = row.querySelector('input[type="checkbox"]')?.checked;
      const output = row.querySelector("output.line-total");
      const warning = row.querySelector(".line-warning");
      const quantity = /^\d{1,9}$/.test(qtyField.value.trim()) ? Number(qtyField.value.trim()) : null;
      if (warning) warning.textContent = quantity && quantity > 0 ? warningsFor(row, quantity) : "";
      const tier = quantity ? tierFor(JSON.parse(row.dataset.tiers || "[]"), quantity) : null;
      if (costField) costField.placeholder = tier ? tier.price : row.dataset.baseCost || "";
      const typed = costField?.value.trim() ?? "";
      const cost = parse(typed !== "" ? typed : tier ? tier.price : row.dataset.baseCost || "0");
      const discountText = row.querySelector("input.discount")?.value.trim() ?? "";
      const discount = discountText === "" ? 0n : parse(discountText);
      if (quantity === null || cost === null || discount === null || discount > hundred) {
        complete = false;
        if (output) output.textContent = "";
        continue;
      }
      // The API's line total: quantity × cost × (100 − discount) / 100, rounded once to the currency.
      const total = divRound(
        cost * BigInt(quantity) * (hundred - discount),
        hundred * TEN ** BigInt(PLACES - minor),
      );
      if (output) output.textContent = removed ? "removed" : show(total, minor, currency);
      if (removed) continue;
      subtotal += total;
      tax += taxAt(total, lineRate(row));
    }
    for (const field of form.querySelectorAll("input.charge-amount")) {
      if (field.value.trim() === "") continue;
      const amount = parse(field.value);
      if (amount === null) {
        complete = false;
        continue;
      }
      const inMinor = toMinor(amount, minor);
      charges += inMinor;
      if (chargesTaxable) tax += taxAt(inMinor, rate);
    }
    const put = (id, text) => {
      const out = document.getElementById(id);
      if (out) out.textContent = text;
    };
    const known = (amount) => (complete ? show(amount, minor, currency) : "check the lines");
    put("total-subtotal", known(subtotal));
    put("total-charges", known(charges));
    put("total-tax", rate === null ? "on save" : known(tax));
    put(
      "total-total",
      rate === null
        ? `${known(subtotal + charges)} before tax`
        : known(included ? subtotal + charges : subtotal + charges + tax),
    );
  };
  const enhance = () => {
    for (const form of document.querySelectorAll("form[data-draft-order]")) update(form);
  };
  document.addEventListener("input", (event) => {
    const form = event.target instanceof Element ? event.target.closest("form[data-draft-order]") : null;
    if (form) update(form);
  });
  document.addEventListener("change", (event) => {
    const form = event.target instanceof Element ? event.target.closest("form[data-draft-order]") : null;
    if (form) update(form);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", enhance);
  else enhance();
})();
