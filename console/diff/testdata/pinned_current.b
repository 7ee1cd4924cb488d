{
  "appliedFeatures": [
    "wr.features.durable_notes",
    "wr.features.divergence_reporting"
  ],
  "capabilities": {
    "delegation": "preferred"
  },
  "context": [
    {
      "description": "quick: a small or low-risk change; per-file review only. standard (default when unset): adds the cross-cutting review. thorough: also builds the branch and runs the tests yourself.",
      "enum": [
        "quick",
        "standard",
        "thorough"
      ],
      "name": "reviewDepth",
      "type": "string"
    },
    {
      "description": "Paths of the changed files worth reviewing, riskiest first (leave out generated files, lockfiles and vendored code). Send it with continue_workflow after the first step; the per-file review loops over it. When unset, the whole diff is reviewed in one pass; an empty list means no file needs a line-by-line review.",
      "name": "changedFiles",
      "type": "array"
    }
  ],
  "contracts": {
    "wr.contracts.gaps": {
      "description": "Things the agent could not do or had to assume, disclosed durably.",
      "example": {
        "gaps": [
          {
            "howToResolve": "Run task test-integration with PostgreSQL up.",
            "severity": "warning",
            "summary": "Could not run the integration tests: no database available."
          }
        ],
        "kind": "wr.contracts.gaps"
      },
      "schema": {
        "additionalProperties": false,
        "properties": {
          "gaps": {
            "items": {
              "additionalProperties": false,
              "properties": {
                "howToResolve": {
                  "maxLength": 1024,
                  "type": "string"
                },
                "severity": {
                  "enum": [
                    "warning",
                    "critical"
                  ]
                },
                "summary": {
                  "maxLength": 512,
                  "minLength": 1,
                  "type": "string"
                }
              },
              "required": [
                "summary",
                "severity"
              ],
              "type": "object"
            },
            "maxItems": 10,
            "type": "array"
          },
          "kind": {
            "const": "wr.contracts.gaps"
          }
        },
        "required": [
          "kind",
          "gaps"
        ],
        "type": "object"
      }
    },
    "wr.contracts.workflow_divergence": {
      "description": "An intentional deviation from the step's instructions, and why.",
      "example": {
        "kind": "wr.contracts.workflow_divergence",
        "reason": "step_not_applicable",
        "summary": "The repository has no tests, so the test step was skipped."
      },
      "schema": {
        "additionalProperties": false,
        "properties": {
          "kind": {
            "const": "wr.contracts.workflow_divergence"
          },
          "reason": {
            "enum": [
              "user_instruction",
              "step_not_applicable",
              "better_approach_found",
              "missing_capability",
              "scope_change",
              "superseded"
            ]
          },
          "relatedStepId": {
            "type": "string"
          },
          "summary": {
            "maxLength": 512,
            "minLength": 1,
            "type": "string"
          }
        },
        "required": [
          "reason",
          "summary"
        ],
        "type": "object"
      }
    }
  },
  "description": "Review a merge or pull request: understand its intent, review every changed file against a correctness, security and maintainability checklist, and deliver ranked, copy-ready comments; post them only with the user's go-ahead.",
  "id": "wr.code_review",
  "kind": "workflow",
  "name": "Code review (MR/PR)",
  "recommendedPreferences": {
    "autonomy": "guided",
    "riskPolicy": "conservative"
  },
  "steps": [
    {
      "step": {
        "id": "gather-context",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          },
          {
            "id": "wr.capabilities/preferred",
            "provenance": {
              "by": "delegation",
              "origin": "capability_probe"
            },
            "text": "This workflow works better with delegation. Use it where it helps; if it is not available, work without it and add an artifact of kind wr.contracts.capability_observation (status \"unavailable\") so the run records the degraded path."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nKnow what the change is for and what it touches before judging any line of it.\n\nConstraints:\n- Review the diff against the merge base, not against the current main branch tip.\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n- This workflow works better with delegation. Use it where it helps; if it is not available, work without it and add an artifact of kind wr.contracts.capability_observation (status \"unavailable\") so the run records the degraded path.\n\nProcedure:\n1. Read the MR title, description, linked ticket and any design notes; write the intent in one or two sentences.\n2. Check CI status and existing review threads; do not repeat points already raised.\n3. Fetch the branch and list the diff: git fetch, then git diff --stat <base>...<head>.\n4. Classify each changed file by risk: high (auth, payments, data migrations, concurrency, public API), medium (business logic), low (tests, docs, config, renames).\n5. Send changedFiles in context with the next continue_workflow call: the files to review, riskiest first, without generated, lock or vendored files.\n\nOutput required:\n- The intent, the CI status, and a table of changed files with risk and a one-line summary each.",
        "provenance": {
          "origin": "authored"
        },
        "title": "Understand the change"
      }
    },
    {
      "step": {
        "id": "check-scope",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nDecide whether this is one coherent, reviewable change that does what it says.\n\nConstraints:\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. Compare the diff with the stated intent: flag unrelated changes and anything the description promises but the diff lacks.\n2. Flag size: more than about 400 changed lines of logic usually deserves a split; say where to split.\n3. Check that tests, docs, migrations, feature flags and changelog entries come with the change when it needs them.\n\nOutput required:\n- Scope findings, or \"scope is coherent\".",
        "provenance": {
          "origin": "authored"
        },
        "title": "Check the size and shape of the change"
      }
    },
    {
      "loop": {
        "body": [
          {
            "step": {
              "id": "review-file",
              "injections": [
                {
                  "id": "wr.features.durable_notes/notes",
                  "provenance": {
                    "by": "wr.features.durable_notes",
                    "origin": "feature"
                  },
                  "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
                },
                {
                  "id": "wr.features.divergence_reporting/divergence",
                  "provenance": {
                    "by": "wr.features.divergence_reporting",
                    "origin": "feature"
                  },
                  "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
                }
              ],
              "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nReview the current file's changes line by line, reading enough surrounding code to judge them.\n\nConstraints:\n- Every finding names file:line, the problem, why it matters and a concrete fix.\n- Do not comment on formatting a linter would catch, or on taste without a reason.\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. Correctness: logic errors, off-by-one, wrong conditions, nil or null handling, unhandled error returns, wrong units or time zones.\n2. Edge cases: empty input, very large input, duplicates, concurrent callers, retries, partial failure.\n3. Security: injection, missing authorization checks, secrets in code or logs, unsafe deserialization, path traversal, user-controlled URLs.\n4. Concurrency and resources: shared state without synchronization, leaks of goroutines, threads, files or connections, missing timeouts or cancellation.\n5. API and data: breaking changes to public interfaces, schemas or wire formats; migrations that are not backward compatible.\n6. Tests: the new behaviour and its failure paths are tested; tests assert outcomes, not implementation details.\n7. Readability: names say what things are, functions do one thing, comments explain why rather than what.\n\nOutput required:\n- Findings for this file with severity blocking, major, minor or nit; or \"no findings\".",
              "provenance": {
                "origin": "authored"
              },
              "title": "Review one file"
            }
          }
        ],
        "id": "per-file",
        "provenance": {
          "origin": "authored"
        },
        "spec": {
          "as": "file",
          "kind": "forEach",
          "maxIterations": 60,
          "over": "changedFiles"
        },
        "title": "Review each changed file"
      }
    },
    {
      "step": {
        "id": "review-diff",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nReview the entire diff in one pass, because no per-file list was provided.\n\nConstraints:\n- Every finding names file:line, the problem, why it matters and a concrete fix.\n- Do not comment on formatting a linter would catch, or on taste without a reason.\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. If delegation is available, split the files among subagents, each with the checklist below, then merge and de-duplicate their findings; otherwise go through the files yourself, riskiest first.\n2. Apply the checklist: correctness, edge cases, security, concurrency and resources, API and data compatibility, tests, readability.\n\nOutput required:\n- Findings with severity blocking, major, minor or nit, grouped by file.",
        "provenance": {
          "origin": "authored"
        },
        "runCondition": {
          "exists": false,
          "var": "changedFiles"
        },
        "title": "Review the whole diff"
      }
    },
    {
      "step": {
        "id": "cross-cutting",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nCatch the problems that no single file shows.\n\nConstraints:\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. Check that invariants stay consistent across the files: a new field is written, read, validated, migrated and serialized everywhere it must be.\n2. Look for duplicated logic that should reuse an existing helper, and for layering violations.\n3. Check operability: logging, metrics and error messages are enough to debug this change in production; rollout and rollback are safe.\n4. Check performance on hot paths: queries inside loops, unbounded growth, missing pagination or indexes.\n5. Review new or upgraded dependencies: necessity, licence, maintenance, size.\n\nOutput required:\n- Cross-cutting findings with severity, or \"none\".",
        "provenance": {
          "origin": "authored"
        },
        "runCondition": {
          "not": {
            "equals": "quick",
            "var": "reviewDepth"
          }
        },
        "title": "Review across files"
      }
    },
    {
      "step": {
        "id": "verify-locally",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nConfirm the change builds, passes its tests and behaves as described.\n\nConstraints:\n- Do not push commits or modify the branch.\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. Check out the branch in a clean working tree.\n2. Build and run the test suites relevant to the changed files; record the commands and results.\n3. Exercise the new behaviour once by hand (CLI call, request, UI path) and compare with the MR description.\n4. Try one edge case from your findings to confirm or drop it.\n\nOutput required:\n- Commands run, results, and which findings were confirmed or dropped.",
        "provenance": {
          "origin": "authored"
        },
        "runCondition": {
          "equals": "thorough",
          "var": "reviewDepth"
        },
        "title": "Build and test the branch"
      }
    },
    {
      "step": {
        "id": "draft-comments",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nTurn the findings into a review the author can act on immediately.\n\nConstraints:\n- One comment per problem; merge duplicates.\n- Phrase comments as observations and questions about the code, not about the author.\n- Mark nits as optional.\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. Sort findings by severity: blocking, major, minor, nit.\n2. For each, write a copy-ready comment: location (file:line), title, body with the why, and a suggested change when you have one.\n3. Add a short overall summary: what the change does well, the main risks, and the verdict (approve, approve with comments, request changes).\n\nOutput required:\n- The summary, the verdict, and the ordered list of copy-ready comments.\n\nVerify:\n- Every blocking or major comment cites evidence (code, test output or a reproduction), not a hunch.",
        "provenance": {
          "origin": "authored"
        },
        "title": "Draft the review comments"
      }
    },
    {
      "step": {
        "id": "publish",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nDeliver the review the way the user chose.\n\nConstraints:\n- Never approve, merge or request changes on the platform without the user's explicit choice.\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. Show the user the verdict and the comment list, and ask which option they want.\n2. If they chose to post: post each comment at its file and line with the platform's CLI or API, then the summary; report the links.\n3. If they chose not to post: give them the comments formatted for copying.\n\nOutput required:\n- What was posted (with links) or delivered, and the user's choice.",
        "provenance": {
          "origin": "authored"
        },
        "requireConfirmation": true,
        "title": "Deliver or post the review",
        "userDependency": {
          "choiceKind": "external_side_effect",
          "options": [
            "Post all comments and the verdict",
            "Post only blocking and major comments",
            "Do not post; I will copy them myself"
          ],
          "reason": "needs_user_choice",
          "requestedFromUser": "Choose whether and what to post on the merge request.",
          "summary": "Posting review comments is visible to the author and the team.",
          "whyUserOnly": "Comments on the MR platform are public to the team and cannot be silently taken back."
        }
      }
    },
    {
      "step": {
        "id": "disclose-gaps",
        "injections": [
          {
            "id": "wr.features.durable_notes/notes",
            "provenance": {
              "by": "wr.features.durable_notes",
              "origin": "feature"
            },
            "text": "Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets."
          },
          {
            "id": "wr.features.divergence_reporting/divergence",
            "provenance": {
              "by": "wr.features.divergence_reporting",
              "origin": "feature"
            },
            "text": "If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary."
          }
        ],
        "output": {
          "contractRef": "wr.contracts.gaps"
        },
        "prompt": "Act as: a principal engineer reviewing a colleague's merge request: you protect correctness, security and maintainability, and you respect the author's time, so every comment is specific, actionable and ranked by severity\n\nState plainly what this review did not cover, so nobody mistakes it for more than it was.\n\nConstraints:\n- Before calling continue_workflow, put 1-10 lines in output.notesMarkdown: what you did, what you found, what comes next. WorkRail keeps them when the chat forgets.\n- If you deviate from these instructions, say so: add an artifact of kind wr.contracts.workflow_divergence to output.artifacts with a reason and a one-line summary.\n\nProcedure:\n1. List files or areas skipped or only skimmed, and why.\n2. List checks you could not run (tests, builds, environments) and findings you could not confirm.\n\nOutput required:\n- The gaps, or an empty list if the review covered everything.\n- In output.artifacts, one object of kind wr.contracts.gaps (Things the agent could not do or had to assume, disclosed durably.) Example: {\"gaps\":[{\"howToResolve\":\"Run task test-integration with PostgreSQL up.\",\"severity\":\"warning\",\"summary\":\"Could not run the integration tests: no database available.\"}],\"kind\":\"wr.contracts.gaps\"}",
        "provenance": {
          "origin": "authored"
        },
        "title": "Disclose what was not reviewed"
      }
    }
  ],
  "version": "1.1.0"
}
