{
  "appliedFeatures": [],
  "context": [
    {
      "description": "Send false when no workspace or folder is open, so the workspace step is skipped. Leave unset otherwise.",
      "name": "hasWorkspace",
      "type": "boolean"
    }
  ],
  "description": "A three-step tour of how WorkRail works: read a step, do it, report back, continue.",
  "id": "wr.hello",
  "kind": "workflow",
