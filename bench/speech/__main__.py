from bench.speech.run import main

raise SystemExit(main())
