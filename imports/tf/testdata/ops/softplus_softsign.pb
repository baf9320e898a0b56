
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ
;
dPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

ySoftplusx*
T0

zSoftplusd*
T0

wSoftsignx*
T0"ª