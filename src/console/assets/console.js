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
