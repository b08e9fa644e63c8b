// The flags of `rollout restart`, shared by the command and its --preview (kept apart: no import circle).
export interface RestartOptions {
  filename?: string[];
  timeout?: string;
  selector?: string;
  output?: string;
  maxUnavailable?: string;
  preview?: boolean;
  featureGates?: string;
}
