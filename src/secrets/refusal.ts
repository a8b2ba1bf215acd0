/** The service must not start: sealed rows no given key opens, or an unusable key file. */
export class SecretsRefusal extends Error {
  override name = "SecretsRefusal";
}
