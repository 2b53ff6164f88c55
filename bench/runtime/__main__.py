from bench.runtime.run import main

raise SystemExit(main())
