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
