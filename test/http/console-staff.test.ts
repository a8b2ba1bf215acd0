/**
 * Staff in the console (issue 20 item 1, decisions §13) through HTTP: an invited owner sets a password
 * from the mailed link and is signed in; the owner's staff page invites, changes roles and disables;
 * roles are enforced on every page and POST (a viewer sees no write control, a forged POST is 403 and
 * changes nothing); a staff member stays in their store; 10 failed sign-ins lock an account for 15
 * minutes; a forgotten password is reset by mail; a store made without an owner asks for one.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ManualClock } from "../../src/clock.ts";
import { installLandingPath } from "../../src/domain/staff/index.ts";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import { ConsoleAgent, hiddenValue, pageText } from "../helpers/console-agent.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff, mailsTo, staffLinkPath, subjectOf } from "../helpers/staff.ts";

let t: TestApp;
let smtp: TestSmtp;
let store: TestStore;
let other: TestStore;
const OWNER_PASSWORD = "correct horse battery";

before(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ env: { SMTP_URL: smtp.url } });
  store = await t.createStore({ name: "Bolt Shop", seed: "demo" });
  other = await t.createStore({ name: "Other Shop" });
  await t.drain();
});
after(async () => {
  await t.close();
  await smtp.close();
});

const staffOf = async (storeId = store.id) =>
  (await t.admin.get(`/admin/stores/${storeId}/staff`)).body.data as any[];

/** The newest link mailed to this address. */
function lastLink(email: string): string {
  const mails = mailsTo(smtp.received, email);
  assert.ok(mails.length > 0, `no mail to ${email}`);
  return staffLinkPath(mails[mails.length - 1]);
}

/** Invites through the admin API, follows the mailed link, sets the password: a signed-in agent. */
function joined(email: string, role: string, password = "a long enough password") {
  return joinStaff(t, smtp, store.id, email, role, password);
}

describe("an invited owner joins", () => {
  let owner: ConsoleAgent;
  let link: string;
  before(() => {
    owner = new ConsoleAgent(t);
    const mails = mailsTo(smtp.received, "owner@example.com");
    link = staffLinkPath(mails.find((m) => subjectOf(m) === "You are invited to Bolt Shop on Stockroom")!);
  });

  test("the link's page asks for a password for that store and address", async () => {
    const page = await owner.get(link);
    assert.equal(page.status, 200);
    assert.match(pageText(page.body), /Choose a password to finish joining Bolt Shop as owner@example\.com/);
  });

  test("a password under 10 characters is refused on the field, and the link still works", async () => {
    const form = await owner.get(link);
    const refused = await owner.post(link, { _csrf: hiddenValue(form.body, "_csrf"), password: "short" });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /aria-invalid="true"/);
    assert.match(pageText(refused.body), /Use at least 10 characters\./);
    assert.equal((await staffOf()).find((s) => s.role === "owner").joined_at, null);
  });

  test("a form without its token is refused (403) and sets nothing", async () => {
    const refused = await new ConsoleAgent(t).post(link, { _csrf: "forged", password: OWNER_PASSWORD });
    assert.equal(refused.status, 403);
    assert.equal((await staffOf()).find((s) => s.role === "owner").joined_at, null);
  });

  test("a good password signs the owner in to the store's page; the member has joined", async () => {
    const form = await owner.get(link);
    const done = await owner.post(link, { _csrf: hiddenValue(form.body, "_csrf"), password: OWNER_PASSWORD });
    assert.equal(done.status, 303);
    assert.equal(done.location, `/console/stores/${store.id}`);
    const home = await owner.get(done.location!);
    assert.equal(home.status, 200);
    assert.match(pageText(home.body), /owner@example\.com \(owner\)/);
    const member = (await staffOf()).find((s) => s.role === "owner");
    assert.equal(member.joined_at, t.clock.now().toISOString());
  });

  test("the link works once", async () => {
    const again = await new ConsoleAgent(t).get(link);
    assert.equal(again.status, 404);
    assert.match(pageText(again.body), /unknown, already used or expired/);
  });

  test("the owner invites a purchasing user from the staff page; the invitation goes out by mail", async () => {
    const page = `/console/stores/${store.id}/staff`;
    const sent = await owner.submit(page, page, {
      email: "pat@example.com",
      name: "Pat",
      role: "purchasing",
    });
    assert.equal(sent.status, 303);
    const shown = await owner.get(page);
    assert.match(pageText(shown.body), /Invitation sent to pat@example\.com\./);
    await t.drain();
    assert.equal(
      subjectOf(mailsTo(smtp.received, "pat@example.com")[0]),
      "You are invited to Bolt Shop on Stockroom",
    );
  });

  test("an invitation the API refuses comes back with the field named in the form's words", async () => {
    const page = `/console/stores/${store.id}/staff`;
    const refused = await owner.submit(page, page, { email: "pat@example.com", name: "", role: "viewer" });
    assert.equal(refused.status, 422);
    assert.match(pageText(refused.body), /Email: is already a staff member of this store/);
    assert.match(refused.body, /id="invite-email"[^>]*aria-invalid="true"/);
  });

  test("the invited user sets a password and signs in with it", async () => {
    const agent = new ConsoleAgent(t);
    const link = lastLink("pat@example.com");
    const form = await agent.get(link);
    assert.equal(
      (await agent.post(link, { _csrf: hiddenValue(form.body, "_csrf"), password: "pats password" })).status,
      303,
    );
    const fresh = new ConsoleAgent(t);
    const signedIn = await fresh.staffLogin("PAT@example.com", "pats password");
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.location, `/console/stores/${store.id}`);
    const home = await fresh.get(`/console/stores/${store.id}`);
    assert.match(pageText(home.body), /pat@example\.com \(purchasing\)/);
  });

  test("the last owner cannot step down from the staff page", async () => {
    const page = `/console/stores/${store.id}/staff`;
    const me = (await staffOf()).find((s) => s.email === "owner@example.com");
    const res = await owner.submit(page, `${page}/${me.id}`, { role: "viewer" });
    assert.equal(res.status, 303);
    assert.match(
      pageText((await owner.get(page)).body),
      /The store needs an owner: make someone else owner first\./,
    );
    assert.equal((await staffOf()).find((s) => s.id === me.id).role, "owner");
  });
});

describe("roles on every page and POST", () => {
  let viewer: ConsoleAgent;
  before(async () => {
    viewer = await joined("vic@example.com", "viewer");
  });

  test("a viewer opens the store's pages without a write control", async () => {
    for (const path of ["", "/alert_rules", "/purchase_orders"]) {
      const page = await viewer.get(`/console/stores/${store.id}${path}`);
      assert.equal(page.status, 200, path);
      const forms = [...page.body.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(forms, ["/console/logout"], `only sign-out on ${path || "/"}`);
    }
  });

  test("a viewer's navigation leaves out the settings; the settings pages are 403", async () => {
    const page = await viewer.get(`/console/stores/${store.id}`);
    assert.doesNotMatch(page.body, /href="\/console\/stores\/\d+\/(keys|staff|webhooks)"/);
    for (const path of ["/keys", "/staff", "/webhooks", "/request_log", "/sync"])
      assert.equal((await viewer.get(`/console/stores/${store.id}${path}`)).status, 403, path);
  });

  test("a forged POST by a viewer is refused 403 and changes nothing", async () => {
    const csrf = hiddenValue((await viewer.get(`/console/stores/${store.id}`)).body, "_csrf");
    const rulesBefore = (await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data;
    const forged = await viewer.post(`/console/stores/${store.id}/alert_rules`, {
      _csrf: csrf,
      rows: "0",
      low_stock_threshold: "7",
    });
    assert.equal(forged.status, 403);
    assert.deepEqual((await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data, rulesBefore);
    const invite = await viewer.post(`/console/stores/${store.id}/staff`, {
      _csrf: csrf,
      email: "intruder@example.com",
      role: "owner",
    });
    assert.equal(invite.status, 403);
    assert.equal(
      (await staffOf()).some((s) => s.email === "intruder@example.com"),
      false,
    );
    assert.equal(
      (await viewer.post(`/console/stores/${store.id}/api_access`, { _csrf: csrf, api_access: "off" }))
        .status,
      403,
    );
    assert.equal((await t.admin.get(`/admin/stores/${store.id}`)).body.data.api_access, true);
  });

  test("an inventory user may save alert rules; a purchasing user may not (403)", async () => {
    const inventory = await joined("ina@example.com", "inventory");
    const page = `/console/stores/${store.id}/alert_rules`;
    const saved = await inventory.submit(page, page, { rows: "0", low_stock_threshold: "4" });
    assert.equal(saved.status, 303);
    assert.equal(
      (await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data.low_stock_threshold,
      4,
    );
    const buyer = await joined("bob@example.com", "purchasing");
    const csrf = hiddenValue((await buyer.get(`/console/stores/${store.id}`)).body, "_csrf");
    assert.equal((await buyer.post(page, { _csrf: csrf, rows: "0", low_stock_threshold: "9" })).status, 403);
    assert.equal(
      (await t.admin.get(`/admin/stores/${store.id}/alert_rules`)).body.data.low_stock_threshold,
      4,
    );
  });

  test("a staff member stays in their store: the store list leads home, another store is 404", async () => {
    const list = await viewer.get("/console/stores");
    assert.equal(list.status, 303);
    assert.equal(list.location, `/console/stores/${store.id}`);
    assert.equal((await viewer.get(`/console/stores/${other.id}`)).status, 404);
    assert.equal((await viewer.get(`/console/stores/${other.id}/alert_rules`)).status, 404);
  });

  test("a role change applies at the next request; disabling signs the member out", async () => {
    const member = await joined("dan@example.com", "viewer");
    const id = (await staffOf()).find((s) => s.email === "dan@example.com").id;
    expectStatus(await t.admin.patch(`/admin/stores/${store.id}/staff/${id}`, { role: "inventory" }), 200);
    const rules = await member.get(`/console/stores/${store.id}/alert_rules`);
    assert.match(rules.body, /Save alert rules/);
    expectStatus(await t.admin.patch(`/admin/stores/${store.id}/staff/${id}`, { disabled: true }), 200);
    const after = await member.get(`/console/stores/${store.id}`);
    assert.equal(after.status, 303);
    assert.match(after.location!, /^\/console\/login/);
    assert.equal(
      (await new ConsoleAgent(t).staffLogin("dan@example.com", "a long enough password")).status,
      401,
    );
  });
});

describe("sign-in lockout and password reset", () => {
  test("10 failed sign-ins lock the account for 15 minutes, the right password included", async () => {
    await joined("lou@example.com", "viewer", "lous password");
    const agent = new ConsoleAgent(t);
    for (let i = 0; i < 10; i++) {
      const wrong = await agent.staffLogin("lou@example.com", `wrong password ${i}`);
      assert.equal(wrong.status, i < 9 ? 401 : 429, `attempt ${i + 1}`);
    }
    const locked = await agent.staffLogin("lou@example.com", "lous password");
    assert.equal(locked.status, 429);
    assert.match(pageText(locked.body), /locked after 10 failed sign-ins/);
    (t.clock as ManualClock).advance(14 * 60 * 1000);
    assert.equal((await agent.staffLogin("lou@example.com", "lous password")).status, 429);
    (t.clock as ManualClock).advance(60 * 1000);
    const open = await agent.staffLogin("lou@example.com", "lous password");
    assert.equal(open.status, 303);
  });

  test("a wrong password says so without naming which half was wrong", async () => {
    const wrong = await new ConsoleAgent(t).staffLogin("nobody@example.com", "whatever password");
    assert.equal(wrong.status, 401);
    assert.match(pageText(wrong.body), /That email and password do not match\./);
  });

  test("a forgotten password: a reset link by mail, the new password works and the old one not", async () => {
    await joined("rae@example.com", "viewer", "raes old password");
    const agent = new ConsoleAgent(t);
    const sent = await agent.submit("/console/forgot", "/console/forgot", { email: "rae@example.com" });
    assert.equal(sent.status, 200);
    assert.match(
      pageText(sent.body),
      /If that address has an account, a link to choose a new password is on its way/,
    );
    await t.drain();
    const mails = mailsTo(smtp.received, "rae@example.com");
    assert.equal(subjectOf(mails[mails.length - 1]), "Reset your Stockroom password for Bolt Shop");
    const link = lastLink("rae@example.com");
    const form = await agent.get(link);
    assert.equal(
      (await agent.post(link, { _csrf: hiddenValue(form.body, "_csrf"), password: "raes new password" }))
        .status,
      303,
    );
    assert.equal((await new ConsoleAgent(t).staffLogin("rae@example.com", "raes old password")).status, 401);
    assert.equal((await new ConsoleAgent(t).staffLogin("rae@example.com", "raes new password")).status, 303);
  });

  test("an address without an account gets the same answer and no mail", async () => {
    const before = smtp.received.length;
    const sent = await new ConsoleAgent(t).submit("/console/forgot", "/console/forgot", {
      email: "ghost@example.com",
    });
    assert.equal(sent.status, 200);
    assert.match(pageText(sent.body), /If that address has an account/);
    await t.drain();
    assert.equal(smtp.received.length, before);
  });

  test("one email in two stores signs in to the store it picks", async () => {
    expectStatus(
      await t.admin.post(`/admin/stores/${other.id}/staff`, { email: "pat@example.com", role: "viewer" }),
      201,
    );
    await t.drain();
    const agent = new ConsoleAgent(t);
    const link = lastLink("pat@example.com");
    const form = await agent.get(link);
    await agent.post(link, { _csrf: hiddenValue(form.body, "_csrf"), password: "pats password" });
    const fresh = new ConsoleAgent(t);
    const choose = await fresh.staffLogin("pat@example.com", "pats password");
    assert.equal(choose.status, 200);
    assert.match(pageText(choose.body), /Bolt Shop \(purchasing\).*Other Shop \(viewer\)/);
    const otherId = (await staffOf(other.id)).find((s) => s.email === "pat@example.com").id;
    const picked = await fresh.post("/console/login/choose", {
      _csrf: hiddenValue(choose.body, "_csrf"),
      choice: hiddenValue(choose.body, "choice"),
      staff_id: String(otherId),
    });
    assert.equal(picked.status, 303);
    assert.equal(picked.location, `/console/stores/${other.id}`);
  });
});

describe("a store made without an owner (a Shopify install)", () => {
  test("the claim page asks for the owner's email and invites them; it works once", async () => {
    const created = await t.admin.post("/admin/stores", {
      name: "Shopify Shop",
      currency: "USD",
      timezone: "UTC",
    });
    expectStatus(created, 201);
    const storeId = created.body.data.id;
    const path = await installLandingPath(t.runtime.ctx, storeId);
    assert.match(path, /^\/console\/welcome\/[A-Za-z0-9_-]{43}$/);
    const agent = new ConsoleAgent(t);
    const page = await agent.get(path);
    assert.equal(page.status, 200);
    assert.match(pageText(page.body), /Shopify Shop is connected\. Who runs it\?/);
    const bad = await agent.post(path, { _csrf: hiddenValue(page.body, "_csrf"), email: "nope" });
    assert.equal(bad.status, 422);
    const form = await agent.get(path);
    const sent = await agent.post(path, {
      _csrf: hiddenValue(form.body, "_csrf"),
      email: "shop-owner@example.com",
    });
    assert.equal(sent.status, 200);
    assert.deepEqual(
      (await staffOf(storeId)).map((s) => [s.email, s.role]),
      [["shop-owner@example.com", "owner"]],
    );
    await t.drain();
    assert.equal(
      subjectOf(mailsTo(smtp.received, "shop-owner@example.com")[0]),
      "You are invited to Shopify Shop on Stockroom",
    );
    assert.equal((await new ConsoleAgent(t).get(path)).status, 404);
  });

  test("a store with staff lands on its console page instead", async () => {
    assert.equal(await installLandingPath(t.runtime.ctx, store.id), `/console/stores/${store.id}`);
  });
});

describe("the staff page in the store's time zone", () => {
  test("an invitation's moment is the store's clock, one readable format", async () => {
    // India has no daylight saving: +05:30 all year, so the expected text is plain arithmetic here.
    const indian = await t.createStore({ name: "Kolkata Shop", timezone: "Asia/Kolkata" });
    const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    const inKolkata = (iso: string) => {
      const d = new Date(Date.parse(iso) + 5.5 * 3600_000);
      const two = (n: number) => String(n).padStart(2, "0");
      return `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
    };
    const owner = await joinStaff(t, smtp, indian.id, "kiran@example.com", "owner");
    expectStatus(
      await t.admin.post(`/admin/stores/${indian.id}/staff`, { email: "ravi@example.com", role: "viewer" }),
      201,
    );
    const staff = (await t.admin.get(`/admin/stores/${indian.id}/staff`)).body.data as any[];
    const ravi = staff.find((m) => m.email === "ravi@example.com");
    const res = await owner.get(`/console/stores/${indian.id}/staff`);
    assert.equal(res.status, 200, res.body.slice(0, 300));
    assert.match(
      pageText(res.body),
      new RegExp(`ravi@example\\.com .*Invited ${inKolkata(ravi.invited_at)} `),
    );
    assert.match(
      res.body,
      new RegExp(`<time datetime="${ravi.invited_at}">${inKolkata(ravi.invited_at)}</time>`),
    );
  });
});

describe("the store's front page", () => {
  /** The front page's "Start here" links (label → path after the store's), and what else it shows. */
  async function frontPage(agent: ConsoleAgent) {
    const res = await agent.get(`/console/stores/${store.id}`);
    assert.equal(res.status, 200);
    const nav = /<nav class="shortcuts"[^>]*>([\s\S]*?)<\/nav>/.exec(res.body)?.[1] ?? "";
    const links = [...nav.matchAll(/<a href="\/console\/stores\/\d+([^"]*)">([^<]+)<\/a>/g)].map((m) => [
      m[2],
      m[1].replaceAll("&amp;", "&"),
    ]);
    return { links, shown: pageText(res.body) };
  }
  const open = "/purchase_orders?status=ordered%2Cin_transit%2Cpartial";
  const common = [
    ["Orders awaiting delivery", open],
    ["Low stock", "/stock/low"],
    ["Stock levels", "/stock"],
  ];

  test("each role starts from the work it may do; the API switch and rate limits are the owner's", async () => {
    const buyer = await frontPage(await joined("fp-buyer@example.com", "purchasing"));
    assert.deepEqual(buyer.links, [
      ["New purchase order", "/purchase_orders/new"],
      ["Drafts", "/purchase_orders?status=draft"],
      ...common,
      ["Suppliers", "/suppliers"],
    ]);
    const stock = await frontPage(await joined("fp-stock@example.com", "inventory"));
    assert.deepEqual(stock.links, [...common, ["New stock adjustment", "/stock_adjustments/new"]]);
    const viewerAgent = await joined("fp-view@example.com", "viewer");
    const viewer = await frontPage(viewerAgent);
    assert.deepEqual(viewer.links, common);
    for (const staff of [buyer, stock, viewer]) {
      assert.doesNotMatch(staff.shown, /API access|Rate limits/);
      assert.match(staff.shown, /Currency USD/);
    }

    const owner = await frontPage(await joined("fp-owner@example.com", "owner"));
    assert.equal(owner.links.length, 7);
    assert.match(owner.shown, /API access is on\./);
    const limits = (await t.admin.get(`/admin/stores/${store.id}`)).body.data.rate_limits;
    const grouped = new Intl.NumberFormat("en-US").format(limits.per_key_per_minute);
    assert.match(grouped, /,/, "the store's limit has thousands to group");
    assert.match(owner.shown, new RegExp(`Rate limits \\(requests per minute\\) Per key ${grouped} `));
    // Each link leads to a page its reader may open.
    for (const [, rest] of viewer.links)
      assert.equal((await viewerAgent.get(`/console/stores/${store.id}${rest}`)).status, 200, rest);
  });
});
