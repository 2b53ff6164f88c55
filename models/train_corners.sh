#!/bin/bash
# How models/corners.pt was trained: one call on a lent GPU machine (16 cores, H200).
# Run from the repository root with .faces (python -m referee.vision.faces .faces) and the
# ultralytics wheels in .whl/; OUT is where the weights and logs go. Locally (CPU) e.g.:
#   OUT=/tmp/out SKIPPIP=1 PY=.venv/bin/python DEVICE=cpu JOBS=2 WORKERS=2 BATCH=16 bash models/train_corners.sh
# Where polars is missing (the GPU image), give ultralytics an empty one (it only uses it for
# CSV/plots): mkdir -p .devpack/stub/polars && touch .devpack/stub/polars/__init__.py
set -o pipefail
T0=$(date +%s)
[ -n "$SKIPPIP" ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site:.devpack/stub:$PWD
export PYTHONUNBUFFERED=1 REFEREE_YOLO_CONFIG_DIR=/tmp/yolocfg YOLO_VERBOSE=True
NTRAIN=${NTRAIN:-9000}; NVAL=${NVAL:-400}; HOURS=${HOURS:-0.1}
nvidia-smi -L | tee $OUT/log.txt
${PY:-python3} -m referee.vision.synth .faces /tmp/ds --train $NTRAIN --val $NVAL --jobs ${JOBS:-16} 2>&1 | tail -3 | tee -a $OUT/log.txt
echo "gen done after $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
LEFT=$(( ${BUDGET:-500} - ( $(date +%s) - T0 ) - 45 ))
HOURS=$(python3 -c "print(round(max(60, $LEFT) / 3600, 4))")
echo "training for $HOURS h" | tee -a $OUT/log.txt
( while sleep 20; do cp /tmp/runs/corners/weights/best.pt $OUT/corners_partial.pt 2>/dev/null; cp /tmp/runs/corners/results.csv $OUT/ 2>/dev/null; done ) >/dev/null 2>&1 &
LOOP=$!
${PY:-python3} -m referee.vision.train /tmp/ds/data.yaml --imgsz 512 --hours $HOURS --epochs 200 --batch ${BATCH:-64} \
  --device ${DEVICE:-0} --workers ${WORKERS:-14} --project /tmp/runs --out $OUT/corners.pt 2>&1 | grep -v "it/s]" | tee -a $OUT/train.log | tail -60
cp /tmp/runs/corners/results.csv $OUT/ 2>/dev/null
[ -f $OUT/corners.pt ] || cp /tmp/runs/corners/weights/last.pt $OUT/corners.pt 2>/dev/null
kill $LOOP 2>/dev/null
echo "all done after $(( $(date +%s) - T0 )) s" | tee -a $OUT/log.txt
if [ ! -s $OUT/corners.pt ]; then
  echo "RETRY with workers=0" | tee -a $OUT/log.txt
  ${PY:-python3} -m referee.vision.train /tmp/ds/data.yaml --imgsz 512 --hours 0.03 --epochs 200 --batch 64 \
    --device ${DEVICE:-0} --workers 0 --project /tmp/runs --name retry --out $OUT/corners.pt 2>&1 | grep -v "it/s]" | tee -a $OUT/train2.log | tail -30
fi
