/** A page's 404: unknown id in the path (malformed, not in the API, or another store's). */
export class PageNotFound extends Error {
  constructor(message = "There is no such page.") {
    super(message);
    this.name = "PageNotFound";
  }
}

/** A page or action the signed-in user's role does not allow: 403, nothing changed. */
export class PageForbidden extends Error {
  constructor(message = "Your role does not allow this. Nothing was changed.") {
    super(message);
    this.name = "PageForbidden";
  }
}
