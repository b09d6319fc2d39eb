import { test } from "node:test";
import assert from "node:assert/strict";
import { isOverdue } from "../src/due.js";

test("a task due today is not overdue", () => {
  assert.equal(isOverdue("2026-03-14", new Date("2026-03-14T23:30:00Z")), false);
});

test("a task due yesterday is overdue", () => {
  assert.equal(isOverdue("2026-03-13", new Date("2026-03-14T00:00:01Z")), true);
});
