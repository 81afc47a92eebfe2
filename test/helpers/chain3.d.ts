declare module "chain3";
