// Stockroom console: the copy button next to a new key's secret. Works without it (the field is
// selectable); nothing else on the console needs script.
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
