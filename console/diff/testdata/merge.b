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
  "name": "Hello, WorkRail",
  "steps": [
    {
      "step": {
        "id": "greet",
        "prompt": "Act as: a friendly guide showing the user how a WorkRail workflow runs, brief and concrete\n\nSay hello to the user in one sentence and tell them you are following the WorkRail workflow wr.hello.\n\nConstraints:\n- Keep it to one sentence.\n- Do not ask the user anything yet.",
        "provenance": {
          "origin": "feature"
        },
        "title": "Greet the user"
      }
    },
    {
      "step": {
        "id": "look-around-first",
        "prompt": "Act as: a friendly guide showing the user how a WorkRail workflow runs, brief and concrete\n\nList the top-level files and folders of the current workspace.\n\nConstraints:\n- Name at most ten entries.\n- Only list; do not open or change any file.\n\nOutput required:\n- The list, in your notes for this step.",
        "provenance": {
          "origin": "authored"
        },
        "runCondition": {
          "not": {
            "equals": false,
            "var": "hasWorkspace"
          }
        },
        "title": "Look around the workspace"
      }
    },
    {
      "step": {
        "id": "wrap-up",
        "prompt": "Act as: a friendly guide showing the user how a WorkRail workflow runs, brief and concrete\n\nTell the user in two sentences what you did in the previous steps and that the tour is over.\n\nConstraints:\n- Mention that every note you sent is stored durably by WorkRail.",
        "provenance": {
          "origin": "authored"
        },
        "title": "Wrap up"
      }
    }
  ],
  "version": "1.1.0"
}
