/**
 * A store's staff through the admin API (decisions §13): a store created with owner_email has its owner
 * invited by mail; staff are added (invited by mail), their role changed and disabled; a store always
 * keeps an owner; refusals name the field and change nothing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectDetails, expectError, expectStatus } from "../helpers/assertions.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { mailsTo, staffLinkPath, subjectOf } from "../helpers/staff.ts";

let t: TestApp;
let smtp: TestSmtp;
let store: TestStore;
let other: TestStore;

before(async () => {
  smtp = await startSmtp();
  t = await startTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_URL: "https://console.example.test/" } });
  store = await t.createStore({ name: "Bolt Shop" });
  other = await t.createStore();
  await t.drain();
});
after(async () => {
  await t.close();
  await smtp.close();
});

const staffOf = async (storeId: number) => {
  const res = await t.admin.get(`/admin/stores/${storeId}/staff`);
  expectStatus(res, 200);
  return res.body.data as any[];
};

describe("the owner of a new store", () => {
  test("creating a store with owner_email invites its owner", async () => {
    const [owner, ...rest] = await staffOf(store.id);
    assert.deepEqual(rest, []);
    assert.deepEqual(owner, {
      id: owner.id,
      email: "owner@example.com",
      name: "",
      role: "owner",
      invited_at: owner.invited_at,
      joined_at: null,
      last_sign_in_at: null,
      disabled_at: null,
    });
    assert.equal(owner.invited_at, t.clock.now().toISOString());
  });

  test("the invitation mail carries a one-time link under PUBLIC_URL", () => {
    const mails = mailsTo(smtp.received, "owner@example.com");
    assert.equal(mails.length, 2, "one per store created with that owner");
    // The two stores' invitations go out from jobs of their own: they may arrive in either order.
    const bolt = mails.find((m) => subjectOf(m) === "You are invited to Bolt Shop on Stockroom");
    assert.ok(bolt, mails.map(subjectOf).join(" | "));
    const second = mails.find((m) => m !== bolt)!;
    assert.match(subjectOf(second), /^You are invited to .+ on Stockroom$/);
    assert.match(bolt.raw.replace(/=\r?\n/g, ""), /https:\/\/console\.example\.test\/console\/password\//);
    assert.notEqual(staffLinkPath(bolt), staffLinkPath(second));
  });
});

describe("POST /admin/stores/{id}/staff", () => {
  test("adds a member (201) and mails their invitation after commit", async () => {
    const res = await t.admin.post(`/admin/stores/${store.id}/staff`, {
      email: "Pat@Example.com",
      name: "Pat Buyer",
      role: "purchasing",
    });
    expectStatus(res, 201);
    assert.deepEqual(res.body.data, {
      id: res.body.data.id,
      email: "Pat@Example.com",
      name: "Pat Buyer",
      role: "purchasing",
      invited_at: t.clock.now().toISOString(),
      joined_at: null,
      last_sign_in_at: null,
      disabled_at: null,
    });
    assert.equal(mailsTo(smtp.received, "pat@example.com").length, 0, "not before the job runs");
    await t.drain();
    const [mail] = mailsTo(smtp.received, "pat@example.com");
    assert.equal(subjectOf(mail), "You are invited to Bolt Shop on Stockroom");
    assert.deepEqual(
      (await staffOf(store.id)).map((s) => [s.email, s.role]),
      [
        ["owner@example.com", "owner"],
        ["Pat@Example.com", "purchasing"],
      ],
    );
  });

  test("an email already on the staff (in any case) is 422 on email, and nothing is added", async () => {
    const before = await staffOf(store.id);
    const res = await t.admin.post(`/admin/stores/${store.id}/staff`, {
      email: "OWNER@example.com",
      role: "viewer",
    });
    expectDetails(res, [["email", "already_exists"]]);
    assert.deepEqual(await staffOf(store.id), before);
  });

  test("the same email may be staff of another store", async () => {
    const res = await t.admin.post(`/admin/stores/${other.id}/staff`, {
      email: "pat@example.com",
      role: "viewer",
    });
    expectStatus(res, 201);
  });

  test("a bad email and an unknown role are 422 naming each field", async () => {
    const res = await t.admin.post(`/admin/stores/${store.id}/staff`, {
      email: "not-an-email",
      role: "boss",
    });
    expectDetails(res, [
      ["email", "invalid_value"],
      ["role", "invalid_value"],
    ]);
  });

  test("an unknown field is refused by the schema; an unknown store is 404", async () => {
    expectError(
      await t.admin.post(`/admin/stores/${store.id}/staff`, {
        email: "a@b.co",
        role: "viewer",
        password: "x",
      }),
      422,
      "validation_failed",
    );
    expectError(
      await t.admin.post("/admin/stores/999999/staff", { email: "a@b.co", role: "viewer" }),
      404,
      "not_found",
    );
    expectError(await t.admin.get("/admin/stores/999999/staff"), 404, "not_found");
  });

  test("without the admin token: 401", async () => {
    expectError(await t.client().get(`/admin/stores/${store.id}/staff`), 401, "unauthorized");
  });
});

describe("PATCH /admin/stores/{id}/staff/{staff_id}", () => {
  let memberId: number;
  let ownerId: number;
  before(async () => {
    const created = await t.admin.post(`/admin/stores/${store.id}/staff`, {
      email: "ivy@example.com",
      role: "viewer",
    });
    memberId = created.body.data.id;
    ownerId = (await staffOf(store.id)).find((s) => s.role === "owner").id;
  });

  test("changes the role", async () => {
    const res = await t.admin.patch(`/admin/stores/${store.id}/staff/${memberId}`, { role: "inventory" });
    expectStatus(res, 200);
    assert.equal(res.body.data.role, "inventory");
  });

  test("disables and enables again", async () => {
    const off = await t.admin.patch(`/admin/stores/${store.id}/staff/${memberId}`, { disabled: true });
    expectStatus(off, 200);
    assert.equal(off.body.data.disabled_at, t.clock.now().toISOString());
    const on = await t.admin.patch(`/admin/stores/${store.id}/staff/${memberId}`, { disabled: false });
    expectStatus(on, 200);
    assert.equal(on.body.data.disabled_at, null);
  });

  test("the last owner can be neither demoted nor disabled (422 last_owner), and stays as they were", async () => {
    expectDetails(await t.admin.patch(`/admin/stores/${store.id}/staff/${ownerId}`, { role: "viewer" }), [
      ["role", "last_owner"],
    ]);
    expectDetails(await t.admin.patch(`/admin/stores/${store.id}/staff/${ownerId}`, { disabled: true }), [
      ["disabled", "last_owner"],
    ]);
    const owner = (await staffOf(store.id)).find((s) => s.id === ownerId);
    assert.equal(owner.role, "owner");
    assert.equal(owner.disabled_at, null);
  });

  test("with a second owner, the first may step down", async () => {
    expectStatus(await t.admin.patch(`/admin/stores/${store.id}/staff/${memberId}`, { role: "owner" }), 200);
    expectStatus(
      await t.admin.patch(`/admin/stores/${store.id}/staff/${ownerId}`, { role: "purchasing" }),
      200,
    );
    expectStatus(await t.admin.patch(`/admin/stores/${store.id}/staff/${ownerId}`, { role: "owner" }), 200);
  });

  test("an unknown role is 422 on role; another store's member is 404", async () => {
    expectDetails(await t.admin.patch(`/admin/stores/${store.id}/staff/${memberId}`, { role: "boss" }), [
      ["role", "invalid_value"],
    ]);
    const theirs = (await staffOf(other.id))[0];
    expectError(
      await t.admin.patch(`/admin/stores/${store.id}/staff/${theirs.id}`, { role: "viewer" }),
      404,
      "not_found",
    );
  });
});
