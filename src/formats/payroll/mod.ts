export * from "./d1.ts";
export * from "./d6.ts";
export * from "./delimited.ts";
export * from "./summary.ts";
