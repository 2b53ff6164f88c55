from bench.vision.run import main

raise SystemExit(main())
