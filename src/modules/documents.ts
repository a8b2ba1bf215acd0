import { sendEmailJob } from "../domain/documents/index.ts";
import { documentRoutes } from "../http/routes/documents.ts";
import type { Module } from "./module.ts";

/** Purchase order documents: the PDF and sending it to the supplier by email. */
export const documentsModule: Module = {
  name: "documents",
  routes: documentRoutes,
  jobs: [sendEmailJob],
};
