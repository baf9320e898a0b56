
;
xPlaceholder*
dtype0*
shape:ÿÿÿÿÿÿÿÿÿ

yStopGradientx*
T0"ª