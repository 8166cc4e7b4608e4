export * from "./deklar.ts";
export * from "./pokupki.ts";
export * from "./prodagbi.ts";
export * from "./vies.ts";
export * from "./check.ts";
export * from "./summary.ts";
