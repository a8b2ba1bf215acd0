import { html, type SafeHtml } from "../html/template.ts";
import type { FormBody } from "./context.ts";
import { field } from "./context.ts";
import { csrfField } from "./layout.ts";
import type { Session } from "./session.ts";

/**
 * The confirm step of a destructive action that works without script: the first POST (without
 * `confirm=yes`) changes nothing and answers this question; its button posts the same action again
 * with `confirm=yes` and the same fields.
 */

export function confirmed(form: FormBody): boolean {
  return field(form, "confirm") === "yes";
}

export function confirmStep(options: {
  session: Session;
  action: string;
  question: SafeHtml | string;
  consequence: SafeHtml | string;
  button: string;
  cancelHref: string;
  cancel: string;
  fields?: Record<string, string>;
  /** Inputs the answer may carry (a reason kept in the history), shown above the button. */
  inputs?: SafeHtml;
}): SafeHtml {
  const extra = Object.entries(options.fields ?? {});
  return html`<section class="confirm" aria-labelledby="confirm-question">
<h2 id="confirm-question">${options.question}</h2>
<p>${options.consequence}</p>
<form method="post" action="${options.action}" class="${options.inputs ? "stack narrow" : "inline"}">${csrfField(options.session)}
<input type="hidden" name="confirm" value="yes">${extra.map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}${options.inputs ?? ""}
<button type="submit" class="danger">${options.button}</button></form>
<a href="${options.cancelHref}">${options.cancel}</a>
</section>`;
}
